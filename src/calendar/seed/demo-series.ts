import { settleAfterBulkLoad, type Store } from '../../platform/db/database.ts';
import { findEventForWrite, updateEvent } from '../events/events.repository.ts';
import { recurrenceOfWrite, SeriesOccurrences, type SeriesLimits } from '../recurrence/recurrence.series.ts';
import { countOccurrences, findSingleEventIds } from './demo-events.repository.ts';
import { mulberry32 } from './demo-rows.ts';

/**
 * Recurring series in the demo calendar: single events turned into weekly
 * series the way a PATCH with `recurrence` turns one — the row gains the
 * rule and `SeriesOccurrences.refresh` writes its occurrences (ADR 11) —
 * only many series per transaction.
 */

/** How many times a demo series happens: its rule's COUNT. */
export const SERIES_OCCURRENCES = { min: 50, max: 60 } as const;

// By Date#getUTCDay(), and in RFC 5545's order (weeks start on Monday).
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;
const WEEK = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/**
 * The stored `recurrence` of a weekly demo series starting at `startLocal`:
 * on its own weekday (and, for three in ten, on a second one), 50–60 times.
 * The start's weekday is in BYDAY, so the start is the first of COUNT.
 */
export function weeklyRecurrence(random: () => number, startLocal: string): string {
  const days = new Set<string>([WEEKDAYS[new Date(`${startLocal.slice(0, 10)}T00:00:00Z`).getUTCDay()]!]);
  if (random() < 0.3) days.add(WEEKDAYS[Math.floor(random() * WEEKDAYS.length)]!);
  const count = SERIES_OCCURRENCES.min + Math.floor(random() * (SERIES_OCCURRENCES.max - SERIES_OCCURRENCES.min + 1));
  const byDay = WEEK.filter((day) => days.has(day)).join(',');
  return recurrenceOfWrite([`RRULE:FREQ=WEEKLY;BYDAY=${byDay};COUNT=${count}`])!;
}

export interface ConvertToSeriesOptions {
  /** Single events to turn into weekly series. */
  readonly series: number;
  /** The server's RECURRENCE_MAX_OCCURRENCES and RECURRENCE_HORIZON_DAYS. */
  readonly limits: SeriesLimits;
  readonly onProgress?: (written: number, total: number) => void;
  readonly seed?: number;
  readonly now?: Date;
}

/**
 * Series written per transaction. Each occurrence's categories and tags add
 * one to their term's count (a trigger per link row), so a transaction
 * updates the same few dozen term rows thousands of times. SQLite updates
 * them in place; PostgreSQL keeps every version a transaction makes and
 * each update walks them, so its cost grows with the transaction.
 */
function seriesPerTransaction(store: Store): number {
  return store.dialect === 'postgres' ? 10 : 200;
}

/**
 * Turns `series` single events, spread evenly over the table, into weekly
 * series starting where they start: the calendar keeps its number of
 * events and gains 50–60 occurrences for each series. Throws when there
 * are fewer single events than that.
 */
export async function convertDemoEventsToSeries(
  store: Store,
  options: ConvertToSeriesOptions,
): Promise<{ series: number; occurrences: number }> {
  const { db } = store;
  const now = options.now ?? new Date();
  const random = mulberry32(options.seed ?? 21);
  const occurrences = new SeriesOccurrences(options.limits);
  const singles = await findSingleEventIds(db);
  if (options.series > singles.length) throw new RangeError(`only ${singles.length} single events to turn into ${options.series} series`);
  const chosen = Array.from({ length: options.series }, (_, index) => singles[Math.floor((index * singles.length) / options.series)]!);
  const perTransaction = seriesPerTransaction(store);
  for (let at = 0; at < chosen.length; at += perTransaction) {
    await db.transaction().execute(async (trx) => {
      for (const id of chosen.slice(at, at + perTransaction)) {
        const row = await findEventForWrite(trx, id);
        if (row === undefined) throw new Error(`event ${id} went away while it was made a series`);
        const recurrence = weeklyRecurrence(random, row.start_local);
        await updateEvent(trx, id, { recurrence });
        await occurrences.refresh(trx, { ...row, recurrence }, now);
      }
    });
    options.onProgress?.(Math.min(at + perTransaction, chosen.length), chosen.length);
  }
  if (chosen.length > 0) await settleAfterBulkLoad(store);
  return { series: chosen.length, occurrences: await countOccurrences(db) };
}
