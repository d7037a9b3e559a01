/**
 * The iCalendar UID of an event (RFC 5545 §3.8.4.7): stable for the life of
 * the event, never made of its dates, so that a subscriber's copy of a
 * rescheduled event is updated rather than duplicated. An event imported
 * from a file keeps the UID it came with (`event_ical_uids`); an event born
 * here has `event-{id}@{host of BASE_URL}`. The occurrences of a series share
 * the series' UID and are told apart by RECURRENCE-ID.
 */

/** The UID of an event born here. */
export function ownEventUid(eventId: number, baseUrl: string): string {
  return `event-${eventId}@${new URL(baseUrl).hostname}`;
}

/** The id of the event a UID names, when it is one this calendar made; otherwise undefined. */
export function eventIdOfOwnUid(uid: string, baseUrl: string): number | undefined {
  const match = /^event-([1-9]\d*)@(.+)$/.exec(uid);
  if (match === null || match[2] !== new URL(baseUrl).hostname) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}
