import { fromInstant, isValidZoneName, utcStampMillis, type Stamp } from '../common/dates.ts';
import { MAX_LINE_LENGTH, parseLine, parseRecurrence, RecurrenceError, type Recurrence } from './recurrence.grammar.ts';
import { atWall, expandRecurrence, occurrenceOf, type SeriesStart } from './recurrence.rules.ts';

/**
 * A series' recurrence lines rewritten by a write: cut in two for Google
 * Calendar's "this and following" (the rule of the first ends just before
 * the cut with UNTIL; the second keeps the rule with what is left of its
 * COUNT; EXDATEs and RDATEs go to the side of the cut they fall on), and
 * its exclusions moved with a series that moves.
 */

export interface SplitLines {
  readonly before: string[];
  readonly after: string[];
}

const compactUtc = (stamp: Stamp) => `${stamp.replace(/[-:]/g, '').replace(' ', 'T')}Z`;

/** An RRULE line with its COUNT and UNTIL replaced by `end` (a part, or none). */
function withEnd(ruleText: string, end: string | undefined): string {
  const parts = ruleText.split(';').filter((part) => !/^(COUNT|UNTIL)=/i.test(part));
  return `RRULE:${[...parts, ...(end === undefined ? [] : [end])].join(';')}`;
}

/**
 * The rule's own occurrences (no EXDATE, no RDATE) before the cut: what the
 * first series' COUNT used up. Expanded up to the cut only, within the
 * series' maximum: the cut is one of its stored occurrences.
 */
function countBefore(recurrence: Recurrence, start: SeriesStart, cutUtc: Stamp, max: number): number {
  if (recurrence.rule === undefined) return 0;
  const cut = fromInstant(utcStampMillis(cutUtc), start.zone);
  if (cut === undefined) throw new RecurrenceError(`${cutUtc} is out of range.`);
  const own = expandRecurrence({ rule: recurrence.rule, exdates: [], rdates: [] }, start, { until: cut.local, max });
  return own.filter((occurrence) => occurrence.utc < cutUtc).length;
}

/**
 * The lines of the two series, cut at the occurrence that starts (by its
 * rule) at `cutUtc`. `start` is the first series' start.
 */
export function splitLines(lines: readonly string[], start: SeriesStart, cutUtc: Stamp, max: number): SplitLines {
  const recurrence = parseRecurrence(lines, isValidZoneName);
  const before: string[] = [];
  const after: string[] = [];
  const lastBefore = compactUtc(new Date(utcStampMillis(cutUtc) - 1000).toISOString().slice(0, 19).replace('T', ' '));
  for (const line of lines) {
    const parsed = parseLine(line, isValidZoneName);
    const colon = line.indexOf(':');
    const head = line.slice(0, colon);
    const value = line.slice(colon + 1);
    if (parsed.name === 'RRULE') {
      before.push(withEnd(value, `UNTIL=${lastBefore}`));
      if (parsed.rule.count === undefined) after.push(line);
      else {
        const left = parsed.rule.count - countBefore(recurrence, start, cutUtc, max);
        if (left > 0) after.push(withEnd(value, `COUNT=${left}`));
      }
      continue;
    }
    // A date list: each value goes to the side of the cut it falls on.
    const items = value.split(',');
    const falls = parsed.times.map((time) => occurrenceOf(time, start).utc < cutUtc);
    const side = (early: boolean) => items.filter((_item, at) => falls[at] === early);
    if (side(true).length > 0) before.push(`${head}:${side(true).join(',')}`);
    if (side(false).length > 0) after.push(`${head}:${side(false).join(',')}`);
  }
  return { before, after };
}

const wallMs = (stamp: Stamp) => Date.parse(`${stamp.replace(' ', 'T')}Z`);

/**
 * The lines of a series whose start moves from `start` to `movedTo` (a wall
 * time of its zone): each EXDATE moves with it, by the same wall-clock
 * amount, so it still removes the occurrence it removed (written in UTC).
 * The rule and the RDATEs stay as they are.
 */
export function movedExclusions(lines: readonly string[], start: SeriesStart, movedTo: Stamp): string[] {
  const shift = wallMs(movedTo) - wallMs(start.local);
  if (shift === 0) return [...lines];
  const movedWall = (wall: Stamp) => new Date(wallMs(wall) + shift).toISOString().slice(0, 19).replace('T', ' ');
  return lines.flatMap((line) => {
    const parsed = parseLine(line, isValidZoneName);
    if (parsed.name !== 'EXDATE') return [line];
    const days: string[] = [];
    const instants: string[] = [];
    for (const time of parsed.times) {
      if (time.kind === 'date') days.push(movedWall(`${time.date} 00:00:00`).slice(0, 10).replace(/-/g, ''));
      else instants.push(compactUtc(atWall(movedWall(occurrenceOf(time, start).local), start.zone).utc));
    }
    return [
      ...(days.length > 0 ? [`EXDATE;VALUE=DATE:${days.join(',')}`] : []),
      ...(instants.length > 0 ? [`EXDATE:${instants.join(',')}`] : []),
    ];
  });
}

/**
 * The lines of a series with one more EXDATE value (`EXDATE:…Z` or
 * `EXDATE;VALUE=DATE:…`): added to the last line of that form while it
 * stays within a line's length, so that deleting occurrences one by one
 * does not add a line each (the grammar's caps on lines and values hold).
 */
export function withExclusion(lines: readonly string[], head: 'EXDATE' | 'EXDATE;VALUE=DATE', value: string): string[] {
  const prefix = `${head}:`;
  const at = lines.map((line) => line.toUpperCase().startsWith(prefix)).lastIndexOf(true);
  const joined = at < 0 ? undefined : `${lines[at] as string},${value}`;
  if (joined === undefined || joined.length > MAX_LINE_LENGTH) return [...lines, `${prefix}${value}`];
  return lines.map((line, index) => (index === at ? joined : line));
}
