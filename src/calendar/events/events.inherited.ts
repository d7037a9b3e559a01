import type { Translated } from '../posts/posts.texts.ts';
import type { EventRow } from './events.repository.ts';

/**
 * What an occurrence shows of its series. Occurrence rows hold their own
 * times and a copy of the series' columns, but neither its texts nor its
 * rule: a generated occurrence shows its series' texts, an exception (an
 * occurrence edited on its own, which keeps texts of its own) shows them
 * under its series' slug, since an occurrence is reached through its
 * series' permalink. So a series' write stores its texts and its rule once,
 * not once per occurrence.
 */
type Row = Pick<EventRow, 'id' | 'parent_id' | 'is_exception'>;

/** The events whose texts `rows` show: a single event's or series' own, an exception's and its series', a generated occurrence's series'. */
export function textIdsOf(rows: readonly Row[]): number[] {
  const ids = (row: Row) => (row.parent_id === null ? [row.id] : row.is_exception === 1 ? [row.id, row.parent_id] : [row.parent_id]);
  return [...new Set(rows.flatMap(ids))];
}

/** The series of the occurrences among `rows`, whose rules those occurrences show. */
export function seriesIdsOf(rows: readonly Row[]): number[] {
  return [...new Set(rows.flatMap((row) => (row.parent_id === null ? [] : [row.parent_id])))];
}

/** The texts `row` shows, from the texts of `textIdsOf` its page. */
export function textsOfEvent(row: Row, texts: ReadonlyMap<number, Translated> | undefined): Translated | undefined {
  if (row.parent_id === null) return texts?.get(row.id);
  const series = texts?.get(row.parent_id);
  if (row.is_exception === 0) return series;
  const own = texts?.get(row.id);
  return series?.slug === undefined ? own : { ...own, slug: series.slug };
}
