import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { EventRow, NewEventRow } from '../events/events.repository.ts';
import { fromInstant, fromWallTime, isValidZoneName, nowIn, plusCalendar, utcStampMillis, type Stamp } from '../common/dates.ts';
import { invalidParam } from '../common/wire.ts';
import { parseRecurrence, RecurrenceError, type Recurrence } from './recurrence.grammar.ts';
import { findEventById, findEventForWrite, insertEvent, updateEvent } from '../events/events.repository.ts';
import { findFieldInAllLanguages, reservePostId, upsertTexts } from '../posts/posts.repository.ts';
import { claimSlug } from '../posts/posts.slugs.ts';
import {
  copyEventContent,
  copySeriesContent,
  deleteOccurrenceIds,
  deleteOccurrenceRows,
  findExceptions,
  findOccurrenceIds,
  findSeriesDue,
  insertOccurrences,
  moveOccurrencesAfterCut,
  reserveOccurrenceIds,
  shareSeriesState,
  type OccurrenceTimes,
} from './recurrence.repository.ts';
import { atMostLast, expandRecurrence, type OccurrenceStart, type SeriesStart } from './recurrence.rules.ts';
import { movedExclusions, splitLines, type SplitLines } from './recurrence.lines.ts';

/**
 * Recurring series stored as rows (ADR 11): after every write to a series,
 * its occurrences are made again from it — the same ids for the same
 * original starts, its columns, texts and links copied, exceptions preserved —
 * so that lists, filters and visibility read occurrences as events.
 */

export interface SeriesLimits {
  readonly maxOccurrences: number;
  readonly horizonDays: number;
}

export function seriesLimits(config: Pick<Config, 'recurrenceMaxOccurrences' | 'recurrenceHorizonDays'>): SeriesLimits {
  return { maxOccurrences: config.recurrenceMaxOccurrences, horizonDays: config.recurrenceHorizonDays };
}

// Endless series are extended when their horizon is this much short of where a write would put it.
const HORIZON_SLACK_DAYS = 30;

// Rules with an end are stored whole, up to this far from their start (UNTIL bounds them sooner).
const FINITE_SPAN_YEARS = 100;
// A series starts early enough for that span to end within the calendar (year 9999).
const LATEST_SERIES_START = '9900-01-01 00:00:00';

/** A write's `recurrence`: `undefined` unsent, `null` none (`[]` too), else the lines as stored, checked. */
export function recurrenceOfWrite(lines: readonly string[] | string | null | undefined): string | null | undefined {
  if (lines === undefined) return undefined;
  // A form sends one line as a plain field, and clears a list with an empty value.
  const sent = (typeof lines === 'string' ? [lines] : (lines ?? [])).map((line) => line.trim()).filter((line) => line !== '');
  if (sent.length === 0) return null;
  try {
    parseRecurrence(sent, isValidZoneName);
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalidParam('recurrence', error.message);
    throw error;
  }
  return JSON.stringify(sent);
}

/** A stored recurrence's lines. */
export function recurrenceLines(stored: string): string[] {
  return JSON.parse(stored) as string[];
}

/** A series' stored recurrence once its start moves to `movedTo`: its exclusions move along (see movedExclusions). */
export function recurrenceMovedTo(series: EventRow, movedTo: Stamp): string {
  const start = { local: series.start_local, zone: series.timezone, allDay: series.all_day === 1 };
  return JSON.stringify(movedExclusions(recurrenceLines(series.recurrence as string), start, movedTo));
}

/** Is this row one occurrence of a series (rather than a series or a single event)? */
export function isOccurrence(row: Pick<EventRow, 'parent_id' | 'original_start_utc'>): boolean {
  return row.parent_id !== null && row.original_start_utc !== null;
}

/** Is this row a series? */
export function isSeries(row: Pick<EventRow, 'parent_id' | 'recurrence'>): boolean {
  return row.parent_id === null && row.recurrence !== null;
}

interface StoredSpan {
  readonly from?: Stamp;
  readonly until: Stamp;
  readonly horizon: boolean;
}

/**
 * The last wall time to store occurrences up to, and whether it is the
 * horizon (ahead of today, for rules with no end: later occurrences come as
 * the horizon moves) or the end of a finite series.
 */
function storedSpan(recurrence: Recurrence, series: EventRow, limits: SeriesLimits, now: Date): StoredSpan {
  const today = nowIn(series.timezone, now).local;
  // Whole days, so that the window does not depend on the hour it was computed at.
  const horizon = endOfDay(plusCalendar(today > series.start_local ? today : series.start_local, { days: limits.horizonDays }));
  const rule = recurrence.rule;
  if (rule !== undefined && rule.count === undefined && rule.until === undefined) {
    // As far back as ahead: an endless series keeps a window of occurrences, not all it ever had.
    return { from: startOfDay(plusCalendar(today, { days: -limits.horizonDays })), until: atMostLast(horizon), horizon: true };
  }
  return { until: atMostLast(plusCalendar(series.start_local, { months: FINITE_SPAN_YEARS * 12 })), horizon: false };
}

const startOfDay = (stamp: Stamp): Stamp => `${stamp.slice(0, 10)} 00:00:00`;
const endOfDay = (stamp: Stamp): Stamp => `${stamp.slice(0, 10)} 23:59:59`;

/** The stored columns of a series' row (not the generated ones), which its occurrences copy. */
function storedColumns(series: EventRow): Omit<EventRow, 'duration_days'> {
  const { duration_days: _generated, ...columns } = series as EventRow & { duration_days?: unknown };
  return columns;
}

/** The id and times of one occurrence: moved to its start with the series' exact duration. */
function occurrenceTimes(series: EventRow, id: number, start: OccurrenceStart): OccurrenceTimes {
  const endMs = utcStampMillis(start.utc) + (utcStampMillis(series.end_utc) - utcStampMillis(series.start_utc));
  const allDayEnd =
    series.all_day === 1
      ? fromWallTime(
          `${plusCalendar(start.local, { days: wholeDays(series) }).slice(0, 10)} ${series.end_local.slice(11)}`,
          series.timezone,
        )
      : undefined;
  const end = allDayEnd ?? fromInstant(endMs, series.timezone);
  if (end === undefined) throw invalidParam('recurrence', `An occurrence at ${start.local} would end out of range.`);
  return { id, start_local: start.local, start_utc: start.utc, end_local: end.local, end_utc: end.utc };
}

/** The row of one occurrence: the series' columns with its own id and times, its start its original start. */
function occurrenceRow(series: EventRow, id: number, start: OccurrenceStart): NewEventRow {
  return {
    ...storedColumns(series),
    ...occurrenceTimes(series, id, start),
    parent_id: series.id,
    original_start_local: start.local,
    original_start_utc: start.utc,
    is_exception: 0,
    recurrence_horizon: null,
  };
}

/** Whole days from an all-day series' first day to its last. */
function wholeDays(series: EventRow): number {
  return Math.round((Date.parse(series.end_local.slice(0, 10)) - Date.parse(series.start_local.slice(0, 10))) / 86_400_000);
}

export class SeriesOccurrences {
  constructor(private readonly limits: SeriesLimits) {}

  /**
   * Makes the occurrences of `series` (as written, inside the write's
   * transaction) again; a series that became a single event loses them.
   * A recurrence that gives nothing or too much is a 400 naming it.
   */
  async refresh(trx: Db, series: EventRow, now: Date): Promise<void> {
    if (series.recurrence === null) {
      await deleteOccurrenceRows(trx, series.id, 'all');
      await deleteOccurrenceIds(trx, series.id);
      if (series.recurrence_horizon !== null) await updateEvent(trx, series.id, { recurrence_horizon: null });
      return;
    }
    const { starts, horizon } = this.startsOf(series, now);
    if (horizon !== series.recurrence_horizon) await updateEvent(trx, series.id, { recurrence_horizon: horizon });
    const known = await findOccurrenceIds(trx, series.id);
    const fresh = await reserveOccurrenceIds(
      trx,
      series.id,
      starts.filter((start) => !known.has(start.utc)).map((start) => start.utc),
    );
    const exceptions = await findExceptions(trx, series.id);
    const retained = new Set(starts.map((start) => start.utc));
    // An exception whose original start the rule no longer gives goes with it.
    await deleteOccurrenceRows(
      trx,
      series.id,
      [...exceptions].filter(([utc]) => !retained.has(utc)).map(([, id]) => id),
    );
    await deleteOccurrenceRows(trx, series.id, 'generated');
    const times = starts
      .filter((start) => !exceptions.has(start.utc))
      .map((start) => occurrenceTimes(series, (known.get(start.utc) ?? fresh.get(start.utc)) as number, start));
    await insertOccurrences(trx, series.id, Object.keys(storedColumns(series)), times);
    await copySeriesContent(trx, series.id);
    await shareSeriesState(trx, series.id, {
      status: series.status,
      author_id: series.author_id,
      password_hash: series.password_hash,
      date: series.date,
      date_utc: series.date_utc,
    });
  }

  /**
   * Cuts `series` at `occurrence` ("this and following"): the series keeps
   * what comes before, and a new series — the same event, from the
   * occurrence's original start, with the rest of the rule — takes the
   * rest. Returns the new series' row, for the write to change; at the
   * series' first occurrence there is nothing to cut: the series itself.
   */
  async split(trx: Db, series: EventRow, occurrence: EventRow, now: Date): Promise<EventRow> {
    const cut = occurrence.original_start_utc as string;
    if (cut <= series.start_utc || series.recurrence === null) return series;
    const start = { local: series.start_local, zone: series.timezone, allDay: series.all_day === 1 };
    const { before, after } = cutLines(recurrenceLines(series.recurrence), start, cut, this.limits.maxOccurrences);
    const id = await reservePostId(trx, 'event');
    const from = { local: occurrence.original_start_local as string, utc: cut };
    await insertEvent(trx, {
      ...occurrenceRow(series, id, from),
      parent_id: null,
      recurrence: after.length > 0 ? JSON.stringify(after) : null,
      original_start_local: null,
      original_start_utc: null,
      sequence: 0,
    });
    await copyEventContent(trx, series.id, id);
    // Ids from the cut on, exceptions after it: the occurrence cut at starts the new series with the write's changes.
    await moveOccurrencesAfterCut(trx, series.id, id, cut);
    // The new series is an event of its own: a slug of its own in every language the series has one.
    for (const [language, slug] of await findFieldInAllLanguages(trx, 'event', series.id, 'slug')) {
      await upsertTexts(trx, 'event', id, language, { slug: await claimSlug(trx, 'event', id, slug) });
    }
    // Only RDATEs after the cut: what is left of the series is its first occurrence, a single event.
    const cutSeries = { recurrence: before.length > 0 ? JSON.stringify(before) : null, sequence: series.sequence + 1 };
    await updateEvent(trx, series.id, cutSeries);
    await this.refresh(trx, { ...series, ...cutSeries }, now);
    const created = await findEventById(trx, id);
    if (created === undefined) throw new Error(`The series split from ${series.id} was not written.`);
    return created;
  }

  /**
   * Stores the occurrences that time brought within the horizon of
   * endless series, a batch at a time; any process may run it (each series
   * is held while it is made again). Returns how many series it extended.
   */
  async extendDue(db: Db, now: Date, batch = 100): Promise<number> {
    // A month's slack: each series is extended about monthly, and zones differ from UTC by a day at most.
    const due = plusCalendar(nowIn('UTC', now).local, { days: this.limits.horizonDays - HORIZON_SLACK_DAYS });
    let extended = 0;
    for (const id of await findSeriesDue(db, due, batch)) {
      await db.transaction().execute(async (trx) => {
        const series = await findEventForWrite(trx, id);
        if (series?.recurrence_horizon == null || series.recurrence_horizon >= due) return;
        await this.refresh(trx, series, now);
        extended += 1;
      });
    }
    return extended;
  }

  /** Forgets every occurrence of a series deleted for good. */
  async forget(trx: Db, seriesId: number): Promise<void> {
    await deleteOccurrenceRows(trx, seriesId, 'all');
    await deleteOccurrenceIds(trx, seriesId);
  }

  private startsOf(series: EventRow, now: Date): { starts: OccurrenceStart[]; horizon: Stamp | null } {
    try {
      const recurrence = parseRecurrence(recurrenceLines(series.recurrence as string), isValidZoneName);
      const start = { local: series.start_local, zone: series.timezone, allDay: series.all_day === 1 };
      if (start.local >= LATEST_SERIES_START) {
        throw new RecurrenceError(
          `A recurring event starts before ${LATEST_SERIES_START.slice(0, 10)}: its occurrences are stored up to 100 years ahead.`,
        );
      }
      const span = storedSpan(recurrence, series, this.limits, now);
      const starts = expandRecurrence(recurrence, start, { ...span, max: this.limits.maxOccurrences });
      return { starts, horizon: span.horizon ? span.until : null };
    } catch (error) {
      if (error instanceof RecurrenceError) throw invalidParam('recurrence', error.message);
      throw error;
    }
  }
}

/** The lines of a series cut at `cutUtc`; a rule that cannot be cut within the expansion's limits is a 400 naming `scope`. */
function cutLines(lines: readonly string[], start: SeriesStart, cutUtc: Stamp, max: number): SplitLines {
  try {
    return splitLines(lines, start, cutUtc, max);
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalidParam('scope', `The series cannot be cut at this occurrence: ${error.message}`);
    throw error;
  }
}
