import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { PropRequest } from './caldav.requests.ts';
import type { CaldavReader, CalendarInfo, Representation } from './caldav.reader.ts';
import type { DavPaths } from './caldav.paths.ts';
import { CaldavWriter } from './caldav.writer.ts';
import { clark, element, href, NS, text, type DavResponse } from './caldav.xml.ts';

/**
 * The WebDAV and CalDAV properties of each kind of thing the service has,
 * each computed only when asked (a calendar's ctag represents every member).
 */

type Value = () => string | Promise<string>;

interface Properties {
  readonly values: ReadonlyMap<string, Value>;
  /** Computed on demand only: not part of `allprop` (RFC 4791 §9.6: calendar-data). */
  readonly onDemand?: ReadonlySet<string>;
}

const dav = (name: string) => clark(NS.dav, name);
const caldav = (name: string) => clark(NS.caldav, name);

const privileges = (...names: string[]) => names.map((name) => element(dav('privilege'), element(dav(name)))).join('');
const READ_ONLY = privileges('read', 'read-current-user-privilege-set');
// RFC 3744 §3: adding (bind), changing (write-content) and removing (unbind) events; the calendar's properties stay as they are.
const READ_WRITE = privileges('read', 'read-current-user-privilege-set', 'write-content', 'bind', 'unbind');
const REPORTS = ['calendar-multiget', 'calendar-query']
  .map((name) => element(caldav(name)))
  .concat(element(dav('sync-collection')))
  .map((report) => element(dav('supported-report'), element(dav('report'), report)))
  .join('');
const CALENDAR_DATA = caldav('calendar-data');

/** What every thing the service has tells a client of it: who asks, and that it may only read it. */
function common(reader: CaldavReader, paths: DavPaths): [string, Value][] {
  return [
    [dav('current-user-principal'), () => href(paths.principal(reader.ctx.user))],
    [dav('current-user-privilege-set'), () => READ_ONLY],
  ];
}

export function rootProperties(reader: CaldavReader, paths: DavPaths): Properties {
  return {
    values: new Map<string, Value>([
      [dav('resourcetype'), () => element(dav('collection'))],
      [dav('displayname'), () => 'Almanac CalDAV'],
      ...common(reader, paths),
      // A principal's property, answered here too for clients that ask the root.
      [caldav('calendar-home-set'), () => href(paths.home)],
    ]),
  };
}

export function principalProperties(reader: CaldavReader, paths: DavPaths, user: AuthUser | null): Properties {
  return {
    values: new Map<string, Value>([
      [dav('resourcetype'), () => element(dav('collection')) + element(dav('principal'))],
      [dav('displayname'), () => text(user?.displayName ?? 'Anonymous')],
      [dav('principal-URL'), () => href(paths.principal(user))],
      [caldav('calendar-home-set'), () => href(paths.home)],
      ...common(reader, paths),
    ]),
  };
}

export function homeProperties(reader: CaldavReader, paths: DavPaths): Properties {
  return {
    values: new Map<string, Value>([
      [dav('resourcetype'), () => element(dav('collection'))],
      [dav('displayname'), () => 'Almanac'],
      ...common(reader, paths),
    ]),
  };
}

export function calendarProperties(reader: CaldavReader, paths: DavPaths, info: CalendarInfo): Properties {
  return {
    values: new Map<string, Value>([
      [dav('resourcetype'), () => element(dav('collection')) + element(caldav('calendar'))],
      [dav('displayname'), () => text(info.name)],
      [clark(NS.apple, 'calendar-color'), () => info.color],
      [caldav('calendar-timezone'), () => text(reader.timezone())],
      [caldav('supported-calendar-component-set'), () => '<c:comp name="VEVENT"/>'],
      [caldav('supported-calendar-data'), () => '<c:calendar-data content-type="text/calendar" version="2.0"/>'],
      [dav('supported-report-set'), () => REPORTS],
      [clark(NS.calendarServer, 'getctag'), async () => text(await reader.ctag(info.collection))],
      [dav('sync-token'), async () => text(await reader.currentSyncToken())],
      ...common(reader, paths),
      // Said where writes are taken, so that apps offer edits only there.
      [dav('current-user-privilege-set'), () => (CaldavWriter.mayWrite(reader.ctx, info.collection) ? READ_WRITE : READ_ONLY)],
    ]),
  };
}

export function eventProperties(shown: Representation): Properties {
  return {
    values: new Map<string, Value>([
      [dav('resourcetype'), () => ''],
      [dav('getetag'), () => text(shown.etag)],
      [dav('getcontenttype'), () => 'text/calendar; charset=utf-8; component=vevent'],
      [dav('getcontentlength'), () => String(Buffer.byteLength(shown.ics))],
      [CALENDAR_DATA, () => text(shown.ics)],
    ]),
    onDemand: new Set([CALENDAR_DATA]),
  };
}

/** The response for one thing: the properties asked that it has, and those it has not (404 propstat). */
export async function propertiesResponse(path: string, properties: Properties, asked: PropRequest): Promise<DavResponse> {
  const { values, onDemand } = properties;
  const found = new Map<string, string>();
  if (asked.kind === 'propname') {
    for (const name of values.keys()) found.set(name, '');
    return { href: path, found };
  }
  const names = asked.kind === 'prop' ? asked.names : [...values.keys()].filter((name) => onDemand?.has(name) !== true);
  const missing: string[] = [];
  for (const name of names) {
    const value = values.get(name);
    if (value === undefined) missing.push(name);
    else found.set(name, await value());
  }
  return { href: path, found, missing };
}
