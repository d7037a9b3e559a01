/**
 * The iCalendar UID of an event (RFC 5545 §3.8.4.7): stable for the life of
 * the event, never made of its dates, so that a subscriber's copy of a
 * rescheduled event is updated rather than duplicated. An event imported
 * from a file keeps the UID it came with (`event_ical_uids`); an event born
 * here has `event-{id}@{host and path of BASE_URL}` — the port and the path
 * too, so that two calendars on one host (a copy, a second instance) do not
 * take each other's events for their own. The occurrences of a series share
 * the series' UID and are told apart by RECURRENCE-ID.
 */

/** The UID of an event born here. */
export function ownEventUid(eventId: number, baseUrl: string): string {
  return `event-${eventId}@${calendarOf(baseUrl)}`;
}

/** Where this calendar is: BASE_URL without its scheme (and without a trailing slash). */
function calendarOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** The id of the event a UID names, when it is one this calendar made; otherwise undefined. */
export function eventIdOfOwnUid(uid: string, baseUrl: string): number | undefined {
  const match = /^event-([1-9]\d*)@(.+)$/.exec(uid);
  if (match === null || match[2] !== calendarOf(baseUrl)) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}
