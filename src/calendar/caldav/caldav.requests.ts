import { childrenNamed, parseXml, XmlError, type XmlElement } from '../../platform/xml/xml.ts';
import { davErrors } from './caldav.errors.ts';
import { clark, NS } from './caldav.xml.ts';

/** What CalDAV request bodies ask (RFC 4918 PROPFIND, RFC 4791 reports, RFC 6578 sync-collection), read safely. */

/** The properties asked: all, their names only, or the ones named (Clark notation). */
export type PropRequest =
  { readonly kind: 'allprop' } | { readonly kind: 'propname' } | { readonly kind: 'prop'; readonly names: string[] };

/** A UTC interval, as `YYYY-MM-DD HH:MM:SS` stamps; an open end is absent. */
export interface TimeRange {
  readonly from?: string;
  readonly to?: string;
}

export type Report =
  | { readonly kind: 'multiget'; readonly props: PropRequest; readonly hrefs: string[] }
  /** `component` undefined: every resource (a filter on VCALENDAR alone); another than VEVENT matches none. */
  | { readonly kind: 'query'; readonly props: PropRequest; readonly component?: string; readonly range?: TimeRange; readonly uid?: string }
  | { readonly kind: 'sync'; readonly props: PropRequest; readonly token: string };

const nameOf = (element: XmlElement) => clark(element.namespace, element.localName);

function document(body: unknown): XmlElement | undefined {
  const text = typeof body === 'string' ? body : '';
  if (text.trim() === '') return undefined;
  try {
    return parseXml(text);
  } catch (error) {
    if (error instanceof XmlError) throw davErrors.malformed(error.message);
    throw error;
  }
}

function propsOf(parent: XmlElement): PropRequest {
  if (childrenNamed(parent, NS.dav, 'allprop').length > 0) return { kind: 'allprop' };
  if (childrenNamed(parent, NS.dav, 'propname').length > 0) return { kind: 'propname' };
  const [prop] = childrenNamed(parent, NS.dav, 'prop');
  return prop === undefined ? { kind: 'allprop' } : { kind: 'prop', names: prop.children.map(nameOf) };
}

/** A PROPFIND body; an empty one asks for all properties (RFC 4918 §9.1). */
export function readPropfind(body: unknown): PropRequest {
  const root = document(body);
  if (root === undefined) return { kind: 'allprop' };
  if (nameOf(root) !== clark(NS.dav, 'propfind')) throw davErrors.malformed('A PROPFIND body is a DAV:propfind element.');
  return propsOf(root);
}

/** `20270105T093000Z` → `2027-01-05 09:30:00`: time-range bounds are UTC date-times (RFC 4791 §9.9). */
function utcStampOf(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value.trim());
  const stamp = match === null ? undefined : `${match[1]}-${match[2]}-${match[3]} ${match[4]}:${match[5]}:${match[6]}`;
  if (stamp === undefined || Number.isNaN(Date.parse(`${stamp.replace(' ', 'T')}Z`)) || !sameDay(stamp)) {
    throw davErrors.invalidFilter(`The time-range ${name} "${value}" is no UTC date-time (such as 20270105T093000Z).`);
  }
  return stamp;
}

/** Date.parse rolls 30 February over to March: the stamp must name the day it parses to. */
function sameDay(stamp: string): boolean {
  return new Date(`${stamp.replace(' ', 'T')}Z`).toISOString().slice(0, 19).replace('T', ' ') === stamp;
}

const attribute = (element: XmlElement, name: string) =>
  element.attributes.find((item) => item.namespace === '' && item.localName === name)?.value;

/** calendar-query's filter: VCALENDAR, then at most one component with at most a time-range and a UID (RFC 4791 §9.7). */
function readFilter(report: XmlElement): { component?: string; range?: TimeRange; uid?: string } {
  const [filter] = childrenNamed(report, NS.caldav, 'filter');
  const [calendar, ...others] = filter === undefined ? [] : childrenNamed(filter, NS.caldav, 'comp-filter');
  if (calendar === undefined || others.length > 0 || attribute(calendar, 'name')?.toUpperCase() !== 'VCALENDAR') {
    throw davErrors.invalidFilter('A calendar-query filters with one comp-filter named VCALENDAR.');
  }
  const components = childrenNamed(calendar, NS.caldav, 'comp-filter');
  if (components.length > 1 || calendar.children.length > components.length) {
    throw davErrors.unsupportedFilter('Filter the calendar by one component (VEVENT) and a time-range.');
  }
  const [component] = components;
  if (component === undefined) return {};
  const name = (attribute(component, 'name') ?? '').toUpperCase();
  const ranges = childrenNamed(component, NS.caldav, 'time-range');
  const props = childrenNamed(component, NS.caldav, 'prop-filter');
  if (ranges.length > 1 || props.length > 1 || component.children.length > ranges.length + props.length) {
    throw davErrors.unsupportedFilter('Filter a component by a time-range and its UID only (no other text-match or is-not-defined).');
  }
  const uid = props[0] === undefined ? undefined : uidOf(props[0]);
  const [range] = ranges;
  if (range === undefined) return { component: name, uid };
  const from = utcStampOf(attribute(range, 'start'), 'start');
  const to = utcStampOf(attribute(range, 'end'), 'end');
  if (from === undefined && to === undefined) throw davErrors.invalidFilter('A time-range has a start, an end or both.');
  if (from !== undefined && to !== undefined && to <= from) throw davErrors.invalidFilter('A time-range ends after it starts.');
  return { component: name, range: { from, to }, uid };
}

/** The UID a prop-filter asks for: clients find a resource by its UID (a text-match of the whole of it). */
function uidOf(prop: XmlElement): string {
  const [match, ...more] = childrenNamed(prop, NS.caldav, 'text-match');
  const negated = match !== undefined && attribute(match, 'negate-condition') === 'yes';
  if (attribute(prop, 'name')?.toUpperCase() !== 'UID' || match === undefined || more.length > 0 || prop.children.length > 1 || negated) {
    throw davErrors.unsupportedFilter('A prop-filter matches the UID only, with one text-match.');
  }
  return match.text.trim();
}

/** A REPORT body: the three reports a calendar answers; any other is refused with DAV:supported-report. */
export function readReport(body: unknown): Report {
  const root = document(body);
  if (root === undefined) throw davErrors.malformed('A REPORT needs a body naming the report.');
  const props = propsOf(root);
  switch (nameOf(root)) {
    case clark(NS.caldav, 'calendar-multiget'):
      return { kind: 'multiget', props, hrefs: childrenNamed(root, NS.dav, 'href').map((item) => item.text.trim()) };
    case clark(NS.caldav, 'calendar-query'):
      return { kind: 'query', props, ...readFilter(root) };
    // A calendar holds no collections: sync-level 1 and infinite are the same sync.
    case clark(NS.dav, 'sync-collection'):
      return { kind: 'sync', props, token: childrenNamed(root, NS.dav, 'sync-token')[0]?.text.trim() ?? '' };
    default:
      throw davErrors.unsupportedReport(root.localName);
  }
}
