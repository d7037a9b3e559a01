import type { Db } from '../../platform/db/schema.ts';
import { stampsAt } from '../posts/posts.writes.ts';
import { MAX_DATES, parseRecurrence } from '../recurrence/recurrence.grammar.ts';
import { withExclusion } from '../recurrence/recurrence.lines.ts';
import { recurrenceLines, type SeriesOccurrences } from '../recurrence/recurrence.series.ts';
import { AppError } from '../../platform/errors.ts';
import { isValidZoneName } from '../common/dates.ts';
import { invalidParam } from '../common/wire.ts';
import { eventNotFound } from './events.lookup.ts';
import { copyEventTexts } from '../recurrence/recurrence.repository.ts';
import { deleteTexts } from '../posts/posts.repository.ts';
import { findEventById, findEventForWrite, updateEvent, type EventRow } from './events.repository.ts';
import type { UpdateEventBody } from './events.schemas.ts';

/** What event writes do to a recurring series: through one of its occurrences, or after writing the series itself. */

/** What belongs to a whole series, which an occurrence cannot change on its own. */
const SERIES_FIELDS = ['recurrence', 'status', 'password', 'author', 'date', 'date_utc'] as const;

export function refuseSeriesFields(body: UpdateEventBody): void {
  const field = SERIES_FIELDS.find((name) => body[name] !== undefined);
  if (field !== undefined) throw invalidParam(field, `An occurrence takes its ${field} from its series: change the series.`);
}

/** Deleting one occurrence removes it from its series: an EXDATE of its original start (the series is held). */
export async function excludeOccurrence(
  trx: Db,
  occurrences: SeriesOccurrences,
  row: EventRow,
  siteZone: string,
  now: Date,
): Promise<void> {
  // Held, as the occurrence is: the series' lines are read and written back in one piece.
  const series = await findEventForWrite(trx, row.parent_id as number);
  if (series?.recurrence == null || row.original_start_utc === null) throw eventNotFound(row.id);
  if (parseRecurrence(recurrenceLines(series.recurrence), isValidZoneName).exdates.length >= MAX_DATES) {
    throw new AppError(
      409,
      'rest_series_exclusions_full',
      `The series already leaves out ${MAX_DATES} occurrences, the most it can: change its recurrence, or trash the series.`,
    );
  }
  const compact = (stamp: string) => stamp.replace(/[-:]/g, '').replace(' ', 'T');
  const lines =
    row.all_day === 1
      ? withExclusion(
          recurrenceLines(series.recurrence),
          'EXDATE;VALUE=DATE',
          compact(row.original_start_local ?? row.start_local).slice(0, 8),
        )
      : withExclusion(recurrenceLines(series.recurrence), 'EXDATE', `${compact(row.original_start_utc)}Z`);
  const modified = stampsAt(siteZone, now);
  await updateEvent(trx, series.id, {
    recurrence: JSON.stringify(lines),
    modified: modified.local,
    modified_utc: modified.utc,
    sequence: series.sequence + 1,
  });
  await refreshSeries(trx, occurrences, series.id, now);
}

/** The series that continues from `occurrence` once its series is cut there (the series is held). */
export async function splitAt(trx: Db, occurrences: SeriesOccurrences, occurrence: EventRow, now: Date): Promise<EventRow> {
  const series = await findEventForWrite(trx, occurrence.parent_id as number);
  if (series === undefined) throw eventNotFound(occurrence.id);
  return occurrences.split(trx, series, occurrence, now);
}

/**
 * A generated occurrence shows its series' texts (events.inherited.ts); changed on its own, it becomes an exception
 * that keeps them as its own from then on. Texts an older version copied to the occurrence give way to the series'.
 */
export async function detachOccurrence(trx: Db, row: EventRow): Promise<void> {
  if (row.parent_id === null || row.is_exception === 1) return;
  await deleteTexts(trx, 'event', [row.id]);
  await copyEventTexts(trx, row.parent_id, row.id);
}

/** A series' occurrences made again from it as this write left it. */
export async function refreshSeries(trx: Db, occurrences: SeriesOccurrences, id: number, now: Date): Promise<void> {
  const series = await findEventById(trx, id);
  if (series !== undefined) await occurrences.refresh(trx, series, now);
}
