import ICAL from 'ical.js';
import { isValidZoneName } from '../common/dates.ts';
import { ImportProblemError, type ImportProblemCode, type ProblemParams } from '../common/import-problems.ts';

/**
 * Reading an iCalendar file for import (RFC 5545), all of it before anything
 * is written. ical.js parses; it reports no line numbers and lets some
 * mistakes through (a bad date becomes another date, an unknown TZID a
 * floating time), so a scan of our own checks the file first, with each
 * content line's physical line number preserved across unfolding: any mistake
 * found here is an `IcalSyntaxError` naming its line, and nothing is imported.
 * The scan is linear in the file's length and holds it to `ICAL_LIMITS`
 * before ical.js reads a line of it.
 */

/**
 * What one file may hold (docs/calendar-ical.md, "Limits"), generous for
 * what calendar apps write: VALARM in VEVENT in VCALENDAR is three deep,
 * an ATTENDEE has a dozen parameters.
 */
export const ICAL_LIMITS = {
  /** Components inside one another, VCALENDAR counted. */
  depth: 5,
  propertiesPerComponent: 5_000,
  parametersPerProperty: 100,
  /** Values of one list property (EXDATE, RDATE, CATEGORIES…). */
  valuesPerProperty: 1_000,
  /** Time zones a file defines under TZIDs that are not IANA names, which its events use. */
  ownZones: 20,
  /** Offset changes of one observance (STANDARD, DAYLIGHT) in any one year. */
  zoneChangesPerYear: 12,
  /** Onsets one observance lists (DTSTART, RDATE values, a rule with COUNT). */
  zoneOnsetsPerObservance: 1_000,
  /** Time spent expanding a file's zones, in milliseconds. */
  zoneExpansionMs: 100,
  /** Steps (days examined, dates read) of all a file's zone expansions: some 6,000 a year its events fall in. */
  zoneExpansionSteps: 1_000_000,
} as const;

/** A file that is not iCalendar, with the (1-based, physical) line that shows it. */
export class IcalSyntaxError extends ImportProblemError {
  constructor(
    readonly line: number,
    code: ImportProblemCode,
    params: ProblemParams = {},
  ) {
    super(code, params, (sentence) => `line ${line}: ${sentence}`);
    this.name = 'IcalSyntaxError';
  }
}

export interface ContentLine {
  /** The physical line this content line starts on. */
  readonly line: number;
  /** Upper-cased. */
  readonly name: string;
  /** Parameter names upper-cased; values unquoted and RFC 6868-decoded (lists with their commas intact). */
  readonly params: Readonly<Record<string, string>>;
  readonly value: string;
}

export interface Component {
  readonly name: string;
  readonly line: number;
  readonly properties: ContentLine[];
  readonly components: Component[];
}

interface LogicalLine {
  /** The physical line it starts on. */
  readonly line: number;
  readonly text: string;
}

/**
 * Logical lines (RFC 5545 §3.1): a line starting with a space or a tab
 * continues the one before. Any line end counts (CRLF, LF, a lone CR), and
 * ical.js is given these lines, so both read the same text.
 */
function unfold(text: string): LogicalLine[] {
  const physical = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const logical: { line: number; text: string }[] = [];
  physical.forEach((raw, index) => {
    const last = logical[logical.length - 1];
    if ((raw.startsWith(' ') || raw.startsWith('\t')) && last !== undefined) last.text += raw.slice(1);
    else logical.push({ line: index + 1, text: raw });
  });
  return logical.filter((entry) => entry.text !== '');
}

// Sticky: each match starts where the last one ended, so a line is read once from start to end.
const NAME_AT = /[A-Za-z0-9-]+/y;
const PLAIN_VALUE_AT = /[^";:,]*/y;

function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** RFC 6868: `^^`, `^n` and `^'` in a parameter value are `^`, a newline and DQUOTE; any other `^` is itself. */
function decodeParameter(value: string): string {
  return value.includes('^')
    ? value.replace(/\^([\^nN'])/g, (_match, code: string) => (code === '^' ? '^' : code === "'" ? '"' : '\n'))
    : value;
}

function parseContentLine(line: number, text: string): ContentLine {
  const rawName = matchAt(NAME_AT, text, 0);
  if (rawName === undefined) throw new IcalSyntaxError(line, 'ical_no_property_name');
  const name = rawName.toUpperCase();
  const params: Record<string, string> = {};
  let count = 0;
  let at = rawName.length;
  while (text[at] === ';') {
    count += 1;
    if (count > ICAL_LIMITS.parametersPerProperty)
      throw new IcalSyntaxError(line, 'ical_too_many_parameters', { name, limit: ICAL_LIMITS.parametersPerProperty });
    const param = matchAt(NAME_AT, text, at + 1);
    if (param === undefined || text[at + 1 + param.length] !== '=') throw new IcalSyntaxError(line, 'ical_bad_parameter', { name });
    at += 2 + param.length;
    const values: string[] = [];
    for (;;) {
      if (values.length === ICAL_LIMITS.valuesPerProperty)
        throw new IcalSyntaxError(line, 'ical_too_many_parameter_values', {
          param: param.toUpperCase(),
          name,
          limit: ICAL_LIMITS.valuesPerProperty,
        });
      if (text[at] === '"') {
        const close = text.indexOf('"', at + 1);
        if (close < 0) throw new IcalSyntaxError(line, 'ical_unclosed_quote', { name });
        values.push(decodeParameter(text.slice(at + 1, close)));
        at = close + 1;
      } else {
        const plain = matchAt(PLAIN_VALUE_AT, text, at) ?? '';
        values.push(decodeParameter(plain));
        at += plain.length;
      }
      if (text[at] !== ',') break;
      at += 1;
    }
    params[param.toUpperCase()] = values.join(',');
  }
  if (text[at] !== ':') throw new IcalSyntaxError(line, 'ical_no_content_line', { text: text.slice(0, 40) });
  return { line, name, params, value: text.slice(at + 1) };
}

/** Components that belong directly in a VCALENDAR (RFC 5545 §3.6). */
const CALENDAR_COMPONENTS = new Set(['VCALENDAR', 'VEVENT', 'VTODO', 'VJOURNAL', 'VFREEBUSY', 'VTIMEZONE']);

const COMPONENT_NAME = /^[A-Za-z0-9-]+/;

/** Properties whose value is a list (RFC 5545 §3.8): each value is counted against the limit. */
const LIST_PROPERTIES = new Set(['EXDATE', 'RDATE', 'CATEGORIES', 'RESOURCES', 'FREEBUSY']);

function checkListLength(content: ContentLine): void {
  if (!LIST_PROPERTIES.has(content.name)) return;
  // Commas a TEXT value escapes (\,) separate nothing.
  const values = (content.value.match(/(?<!\\),/g)?.length ?? 0) + 1;
  if (values > ICAL_LIMITS.valuesPerProperty)
    throw new IcalSyntaxError(content.line, 'ical_too_many_values', { name: content.name, limit: ICAL_LIMITS.valuesPerProperty });
}

interface Scanned {
  /** The VCALENDARs of the file. */
  readonly calendars: Component[];
  /** Every component, calendars included, in file order: checked without recursion. */
  readonly all: Component[];
  /** The lines ical.js is to read: every one but BEGIN and END. */
  readonly propertyLines: LogicalLine[];
}

/** The components of the file, checked for balance (BEGIN and END in pairs, nothing outside VCALENDAR) and for size. */
function scanComponents(text: string): Scanned {
  const calendars: Component[] = [];
  const all: Component[] = [];
  const propertyLines: LogicalLine[] = [];
  const open: Component[] = [];
  let lastLine = 1;
  for (const { line, text: logical } of unfold(text)) {
    lastLine = line;
    // RFC 5545 §3.1: no control characters but HTAB (a NUL could not even be stored).
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000A-\u001F\u007F]/.test(logical)) throw new IcalSyntaxError(line, 'ical_control_character');
    const content = parseContentLine(line, logical);
    if (content.name === 'BEGIN') {
      const component: Component = { name: content.value.trim().toUpperCase(), line, properties: [], components: [] };
      if (!COMPONENT_NAME.test(component.name)) throw new IcalSyntaxError(line, 'ical_begin_without_name');
      const parent = open[open.length - 1];
      if (parent === undefined && component.name !== 'VCALENDAR') throw new IcalSyntaxError(line, 'ical_begin_not_vcalendar');
      if (parent !== undefined && parent.name !== 'VCALENDAR' && CALENDAR_COMPONENTS.has(component.name)) {
        throw new IcalSyntaxError(line, 'ical_component_inside', {
          component: component.name,
          parent: parent.name,
          parentLine: parent.line,
        });
      }
      if (open.length === ICAL_LIMITS.depth)
        throw new IcalSyntaxError(line, 'ical_too_deep', { component: component.name, limit: ICAL_LIMITS.depth });
      (parent?.components ?? calendars).push(component);
      all.push(component);
      open.push(component);
    } else if (content.name === 'END') {
      const current = open.pop();
      const ended = content.value.trim().toUpperCase();
      if (current === undefined) throw new IcalSyntaxError(line, 'ical_end_without_begin', { component: ended });
      if (current.name !== ended)
        throw new IcalSyntaxError(line, 'ical_end_mismatch', { component: ended, due: current.name, dueLine: current.line });
    } else {
      const current = open[open.length - 1];
      if (current === undefined) throw new IcalSyntaxError(line, 'ical_outside_vcalendar', { name: content.name });
      if (current.properties.length === ICAL_LIMITS.propertiesPerComponent) {
        const limit = ICAL_LIMITS.propertiesPerComponent;
        throw new IcalSyntaxError(line, 'ical_too_many_properties', { component: current.name, componentLine: current.line, limit });
      }
      checkListLength(content);
      current.properties.push(content);
      propertyLines.push({ line, text: logical });
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined)
    throw new IcalSyntaxError(lastLine, 'ical_never_closed', { component: unclosed.name, componentLine: unclosed.line });
  if (calendars.length === 0) throw new IcalSyntaxError(1, 'ical_no_vcalendar');
  return { calendars, all, propertyLines };
}

const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

function isRealDate(year: number, month: number, day: number): boolean {
  // Not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
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

/** Dates, durations and zones of each component's lines: wrong ones make the file malformed. */
function checkValues(components: readonly Component[], zones: ReadonlySet<string>): void {
  for (const property of components.flatMap((component) => component.properties)) {
    const { line, name, params } = property;
    if (DATED.includes(name)) {
      const kind = params.VALUE?.toUpperCase();
      const isDate = kind === 'DATE';
      for (const value of property.value.split(',')) {
        // A PERIOD (RDATE) is read from its start.
        const moment = kind === 'PERIOD' ? (value.split('/')[0] ?? '') : value;
        if (!isIcalDateValue(moment.trim(), isDate))
          throw new IcalSyntaxError(line, 'ical_bad_date', { name, value, type: isDate ? 'DATE' : 'DATE-TIME' });
      }
    }
    if (name === 'DURATION' && !DURATION.test(property.value.trim()))
      throw new IcalSyntaxError(line, 'ical_bad_duration', { value: property.value });
    if (name === 'SEQUENCE' && !/^\d{1,9}$/.test(property.value.trim())) throw new IcalSyntaxError(line, 'ical_bad_sequence');
    const tzid = params.TZID;
    if (tzid !== undefined && !zones.has(tzid) && !isValidZoneName(tzid)) {
      throw new IcalSyntaxError(line, 'ical_unknown_tzid', { tzid });
    }
  }
}

/** Longest part of ical.js's own message quoted back: it may quote a whole line. */
const MAX_QUOTED = 200;

/**
 * ical.js reads every checked line; it should agree with the scan. Its own
 * complaints (a ParserError, or the plain Error its value readers throw,
 * 'invalid BYDAY value "XX"') are the user's to read; any other failure is
 * a fault of the library, and its message (a TypeError's) says nothing
 * about the file, so it is not passed on.
 */
function readWithIcalJs(lines: readonly LogicalLine[]): void {
  for (const { line, text } of lines) {
    try {
      ICAL.parse.property(text);
    } catch (error) {
      const isOwnComplaint = error instanceof ICAL.parse.ParserError || (error instanceof Error && error.constructor === Error);
      if (!isOwnComplaint) throw new IcalSyntaxError(line, 'ical_unreadable', { name: `${text.split(/[;:]/, 1)[0]?.toUpperCase()}` });
      const detail = error.message.length > MAX_QUOTED ? `${error.message.slice(0, MAX_QUOTED)}…` : error.message;
      throw new IcalSyntaxError(line, 'ical_refused_value', { detail });
    }
  }
}

export interface ParsedCalendar {
  /** The VEVENTs of every VCALENDAR of the file, in order. */
  readonly events: readonly Component[];
  /** The names of the components of every VCALENDAR of the file (VEVENT, VTIMEZONE, VTODO…), in order. */
  readonly componentNames: readonly string[];
  /** X-WR-TIMEZONE of the first calendar that has a valid one. */
  readonly calendarZone: string | undefined;
  /** The file's VTIMEZONEs by TZID (read only when an event uses one: ical.import.zones.ts). */
  readonly zones: ReadonlyMap<string, Component>;
}

/** The whole file, checked; an `IcalSyntaxError` naming the line if anything is wrong. */
export function parseCalendar(text: string): ParsedCalendar {
  const { calendars, all, propertyLines } = scanComponents(text);
  const zones = new Map<string, Component>();
  for (const vtimezone of calendars.flatMap((calendar) => calendar.components.filter((component) => component.name === 'VTIMEZONE'))) {
    const tzid = vtimezone.properties.find((property) => property.name === 'TZID')?.value;
    if (tzid === undefined || tzid === '') throw new IcalSyntaxError(vtimezone.line, 'ical_vtimezone_without_tzid');
    zones.set(tzid, vtimezone);
  }
  checkValues(all, new Set(zones.keys()));
  readWithIcalJs(propertyLines);
  const calendarZone = calendars
    .map((calendar) => calendar.properties.find((property) => property.name === 'X-WR-TIMEZONE')?.value.trim())
    .find((zone) => zone !== undefined && isValidZoneName(zone));
  const events = calendars.flatMap((calendar) => calendar.components.filter((component) => component.name === 'VEVENT'));
  const componentNames = calendars.flatMap((calendar) => calendar.components.map((component) => component.name));
  return { events, componentNames, calendarZone, zones };
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
