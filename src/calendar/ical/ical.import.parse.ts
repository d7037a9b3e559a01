import ICAL from 'ical.js';
import { isValidZoneName } from '../shared/dates.ts';

/**
 * Reading an iCalendar file for import (RFC 5545), all of it before anything
 * is written. ical.js parses; it reports no line numbers and lets some
 * mistakes through (a bad date becomes another date, an unknown TZID a
 * floating time), so a scan of our own checks the file first, with each
 * content line's physical line number kept across unfolding: any mistake
 * found here is an `IcalSyntaxError` naming its line, and nothing is imported.
 */

/**
 * What one file may hold (docs/calendar-ical.md), generous for what
 * calendar apps write.
 */
export const ICAL_LIMITS = {
  /** Time zones a file defines under TZIDs that are not IANA names, which its events use. */
  ownZones: 20,
  /** Offset changes of one observance (STANDARD, DAYLIGHT) in any one year. */
  zoneChangesPerYear: 12,
  /** Onsets one observance lists (DTSTART, RDATE values, a rule with COUNT). */
  zoneOnsetsPerObservance: 1_000,
  /** Time spent expanding a file's zones, in milliseconds. */
  zoneExpansionMs: 100,
} as const;

/** A file that is not iCalendar, with the (1-based, physical) line that shows it. */
export class IcalSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'IcalSyntaxError';
  }
}

export interface ContentLine {
  /** The physical line this content line starts on. */
  readonly line: number;
  /** Upper-cased. */
  readonly name: string;
  /** Parameter names upper-cased; values unquoted, as written (lists kept with their commas). */
  readonly params: Readonly<Record<string, string>>;
  readonly value: string;
}

export interface Component {
  readonly name: string;
  readonly line: number;
  readonly properties: ContentLine[];
  readonly components: Component[];
}

/** Logical lines (RFC 5545 §3.1): a line starting with a space or a tab continues the one before. */
function unfold(text: string): { line: number; text: string }[] {
  const physical = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const logical: { line: number; text: string }[] = [];
  physical.forEach((raw, index) => {
    const last = logical[logical.length - 1];
    if ((raw.startsWith(' ') || raw.startsWith('\t')) && last !== undefined) last.text += raw.slice(1);
    else logical.push({ line: index + 1, text: raw });
  });
  return logical.filter((entry) => entry.text !== '');
}

const NAME = /^[A-Za-z0-9-]+/;

function parseContentLine(line: number, text: string): ContentLine {
  const nameMatch = NAME.exec(text);
  if (nameMatch === null) throw new IcalSyntaxError(line, 'a content line starts with a property name.');
  const name = nameMatch[0].toUpperCase();
  const params: Record<string, string> = {};
  let at = nameMatch[0].length;
  while (text[at] === ';') {
    const param = NAME.exec(text.slice(at + 1));
    if (param === null || text[at + 1 + param[0].length] !== '=') throw new IcalSyntaxError(line, `a bad parameter in ${name}.`);
    at += 2 + param[0].length;
    const values: string[] = [];
    for (;;) {
      if (text[at] === '"') {
        const close = text.indexOf('"', at + 1);
        if (close < 0) throw new IcalSyntaxError(line, `an unclosed quote in ${name}.`);
        values.push(text.slice(at + 1, close));
        at = close + 1;
      } else {
        const plain = /^[^";:,]*/.exec(text.slice(at))?.[0] ?? '';
        values.push(plain);
        at += plain.length;
      }
      if (text[at] !== ',') break;
      at += 1;
    }
    params[param[0].toUpperCase()] = values.join(',');
  }
  if (text[at] !== ':') throw new IcalSyntaxError(line, `"${text.slice(0, 40)}" is no content line (NAME[;PARAM=…]:value).`);
  return { line, name, params, value: text.slice(at + 1) };
}

/** Components that belong directly in a VCALENDAR (RFC 5545 §3.6). */
const CALENDAR_COMPONENTS = new Set(['VCALENDAR', 'VEVENT', 'VTODO', 'VJOURNAL', 'VFREEBUSY', 'VTIMEZONE']);

/** The components of the file, checked for balance: BEGIN and END in pairs, nothing outside VCALENDAR. */
function scanComponents(text: string): Component[] {
  const roots: Component[] = [];
  const open: Component[] = [];
  let lastLine = 1;
  for (const { line, text: logical } of unfold(text)) {
    lastLine = line;
    // RFC 5545 §3.1: no control characters but HTAB (a NUL could not even be stored).
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000A-\u001F\u007F]/.test(logical)) throw new IcalSyntaxError(line, 'a control character in a content line.');
    const content = parseContentLine(line, logical);
    if (content.name === 'BEGIN') {
      const component: Component = { name: content.value.trim().toUpperCase(), line, properties: [], components: [] };
      if (!NAME.test(component.name)) throw new IcalSyntaxError(line, 'BEGIN names no component.');
      const parent = open[open.length - 1];
      if (parent === undefined && component.name !== 'VCALENDAR') throw new IcalSyntaxError(line, 'a file starts with BEGIN:VCALENDAR.');
      if (parent !== undefined && parent.name !== 'VCALENDAR' && CALENDAR_COMPONENTS.has(component.name)) {
        throw new IcalSyntaxError(line, `BEGIN:${component.name} inside ${parent.name} (line ${parent.line}).`);
      }
      (parent?.components ?? roots).push(component);
      open.push(component);
    } else if (content.name === 'END') {
      const current = open.pop();
      const ended = content.value.trim().toUpperCase();
      if (current === undefined) throw new IcalSyntaxError(line, `END:${ended} without its BEGIN.`);
      if (current.name !== ended) throw new IcalSyntaxError(line, `END:${ended} where END:${current.name} (line ${current.line}) was due.`);
    } else {
      const current = open[open.length - 1];
      if (current === undefined) throw new IcalSyntaxError(line, `${content.name} outside BEGIN:VCALENDAR … END:VCALENDAR.`);
      current.properties.push(content);
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined) throw new IcalSyntaxError(lastLine, `BEGIN:${unclosed.name} (line ${unclosed.line}) is never closed.`);
  if (roots.length === 0) throw new IcalSyntaxError(1, 'no BEGIN:VCALENDAR.');
  return roots;
}

const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** DATE or DATE-TIME, as RFC 5545 §3.3.4/§3.3.5 write them, with real days and times. */
export function isIcalDateValue(value: string, isDate: boolean): boolean {
  const match = (isDate ? DATE : DATE_TIME).exec(value);
  if (match === null) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map(Number) as number[];
  // The RFC allows a leap second (60); no time zone database knows one, so it is refused.
  return isRealDate(year as number, month as number, day as number) && hour < 24 && minute < 60 && second < 60;
}

const DATED = ['DTSTART', 'DTEND', 'DUE', 'RECURRENCE-ID', 'EXDATE', 'RDATE', 'DTSTAMP', 'CREATED', 'LAST-MODIFIED'];
const DURATION = /^[+-]?P(?:\d+W|(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)$/;

/** Dates, durations and zones of one component's lines: wrong ones make the file malformed. */
function checkValues(component: Component, zones: ReadonlySet<string>): void {
  for (const property of component.properties) {
    const { line, name, params } = property;
    if (DATED.includes(name)) {
      const kind = params.VALUE?.toUpperCase();
      const isDate = kind === 'DATE';
      for (const value of property.value.split(',')) {
        // A PERIOD (RDATE) is read from its start.
        const moment = kind === 'PERIOD' ? (value.split('/')[0] ?? '') : value;
        if (!isIcalDateValue(moment.trim(), isDate))
          throw new IcalSyntaxError(line, `${name} "${value}" is no ${isDate ? 'DATE' : 'DATE-TIME'}.`);
      }
    }
    if (name === 'DURATION' && !DURATION.test(property.value.trim()))
      throw new IcalSyntaxError(line, `DURATION "${property.value}" is no duration.`);
    if (name === 'SEQUENCE' && !/^\d{1,9}$/.test(property.value.trim())) throw new IcalSyntaxError(line, 'SEQUENCE is a whole number.');
    const tzid = params.TZID;
    if (tzid !== undefined && !zones.has(tzid) && !isValidZoneName(tzid)) {
      throw new IcalSyntaxError(line, `TZID "${tzid}" is neither a VTIMEZONE of the file nor a known time zone.`);
    }
  }
  for (const child of component.components) checkValues(child, zones);
}

export interface ParsedCalendar {
  /** The VEVENTs of every VCALENDAR of the file, in order. */
  readonly events: readonly Component[];
  /** X-WR-TIMEZONE of the first calendar that has a valid one. */
  readonly calendarZone: string | undefined;
  /** The file's VTIMEZONEs by TZID (read only when an event uses one: ical.import.zones.ts). */
  readonly zones: ReadonlyMap<string, Component>;
}

/** The whole file, checked; an `IcalSyntaxError` naming the line if anything is wrong. */
export function parseCalendar(text: string): ParsedCalendar {
  const calendars = scanComponents(text);
  const vtimezones = calendars.flatMap((calendar) => calendar.components.filter((component) => component.name === 'VTIMEZONE'));
  const zones = new Map<string, Component>();
  for (const vtimezone of vtimezones) {
    const tzid = vtimezone.properties.find((property) => property.name === 'TZID')?.value;
    if (tzid === undefined || tzid === '') throw new IcalSyntaxError(vtimezone.line, 'a VTIMEZONE without TZID.');
    zones.set(tzid, vtimezone);
  }
  for (const calendar of calendars) checkValues(calendar, new Set(zones.keys()));

  // ical.js reads the checked text; it should agree, and when it does not, the line it names is found in the text.
  try {
    ICAL.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const quoted = /"([^"]+)"/.exec(message)?.[1];
    const line = quoted === undefined ? 1 : (unfold(text).find((entry) => entry.text.includes(quoted))?.line ?? 1);
    throw new IcalSyntaxError(line, message);
  }
  const calendarZone = calendars
    .map((calendar) => calendar.properties.find((property) => property.name === 'X-WR-TIMEZONE')?.value.trim())
    .find((zone) => zone !== undefined && isValidZoneName(zone));
  const events = calendars.flatMap((calendar) => calendar.components.filter((component) => component.name === 'VEVENT'));
  return { events, calendarZone, zones };
}

/** A TEXT value unescaped (RFC 5545 §3.3.11). */
export function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_match, character: string) => (character === 'n' || character === 'N' ? '\n' : character));
}

/** A TEXT list (CATEGORIES) split on unescaped commas. */
export function splitTextList(value: string): string[] {
  return value
    .split(/(?<!\\),/)
    .map((item) => unescapeText(item).trim())
    .filter((item) => item !== '');
}
