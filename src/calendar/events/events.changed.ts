import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { listEventChangesAbove, type EventChange } from '../changes/changes.repository.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';

type Db = Kysely<Database>;

/** More events changed than this since a revision: what was carried from it is made afresh rather than brought up to date. */
const MAX_CHANGED = 2_000;
/** The most changes the tail of the log keeps (a few hundred kB): older ones are read from the database again. */
const TAIL_MAX_CHANGES = 20_000;

/**
 * The events changed after a revision up to a version. `incomplete` when the log cannot name them all (`ids` is
 * then partial): more than MAX_CHANGED changed, or a prune forgot removals after that revision (the log's floor
 * passed it), so that what was carried from it must be made afresh.
 */
export interface ChangedEvents {
  readonly ids: readonly number[];
  readonly incomplete: boolean;
}

/**
 * The events the change log names after revision `from` up to `version`:
 * what the remembered events, the carried totals and the carried pages each
 * ask after a write (events.remembered.ts, events.totals.ts,
 * events.pages.ts). Most of them were brought up to the version before, so
 * they ask from the same revision; the version reads each starting
 * revision once for all its requests. A span of the log this process has
 * read already (its tail) is answered from memory. A failed read is not
 * remembered.
 */
export function changedEventsSince(db: Db, version: CalendarVersion, from: number): Promise<ChangedEvents> {
  const tail = tailOf(db);
  const known = tail.since(from, version.revision);
  if (known !== undefined) return Promise.resolve({ ids: known, incomplete: known.length > MAX_CHANGED });
  const reads = version.memo('changed-events', () => new Map<number, Promise<ChangedEvents>>());
  let read = reads.get(from);
  if (read === undefined) {
    read = listEventChangesAbove(db, from, version.revision, MAX_CHANGED + 1).then(({ changes, floor }) => {
      const incomplete = changes.length > MAX_CHANGED || floor > from;
      if (!incomplete) tail.add(from, version.revision, changes);
      return { ids: [...new Set(changes.map((change) => change.id))], incomplete };
    });
    reads.set(from, read);
    read.catch(() => reads.delete(from));
  }
  return read;
}

const tails = new WeakMap<Db, ChangeTail>();

function tailOf(db: Db): ChangeTail {
  let tail = tails.get(db);
  if (tail === undefined) tails.set(db, (tail = new ChangeTail(TAIL_MAX_CHANGES)));
  return tail;
}

/**
 * The latest stretch of the event change log this process has read: every change after revision `start` up to
 * `end`, as each read found it. An event's entry moves to the end of the log when it changes again (ADR 13), so
 * what a later read of a span finds is a subset of what the tail holds for it: events that changed since are
 * named at their old place too. A caller told of an event that did not change in its span only checks it again.
 */
export class ChangeTail {
  /** The revisions held: every change after `start` up to `end`; undefined before the first read. */
  private span: { start: number; end: number } | undefined;
  /** Ascending by revision. */
  private changes: { readonly seq: number; readonly id: number }[] = [];

  constructor(private readonly maxChanges: number) {}

  /** The events changed after `from` up to `to`, without duplicates; undefined when the tail does not hold that whole span. */
  since(from: number, to: number): number[] | undefined {
    if (this.span === undefined || from < this.span.start || to > this.span.end) return undefined;
    const ids = new Set<number>();
    for (let index = this.firstAfter(from); index < this.changes.length && this.changes[index]!.seq <= to; index += 1)
      ids.add(this.changes[index]!.id);
    return [...ids];
  }

  /**
   * Takes in a whole read of the span after `from` up to `to` (its changes ascending by revision): it extends the
   * tail when it starts within it, replaces it when it reaches further, else it is older and left out.
   */
  add(from: number, to: number, changes: readonly EventChange[]): void {
    const span = this.span;
    if (span !== undefined && from >= span.start && from <= span.end) {
      if (to <= span.end) return;
      for (const change of changes) if (change.seq > span.end) this.changes.push({ seq: change.seq, id: change.id });
      span.end = to;
    } else if (span === undefined || to > span.end) {
      this.span = { start: from, end: to };
      this.changes = changes.map((change) => ({ seq: change.seq, id: change.id }));
    } else return;
    this.trim();
  }

  /** Forgets the oldest revisions, whole, while more than `maxChanges` changes are held. */
  private trim(): void {
    if (this.span === undefined || this.changes.length <= this.maxChanges) return;
    const start = this.changes[this.changes.length - this.maxChanges - 1]!.seq;
    this.changes = this.changes.slice(this.firstAfter(start));
    this.span.start = start;
  }

  /** The index of the first change after revision `seq`. */
  private firstAfter(seq: number): number {
    let [low, high] = [0, this.changes.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.changes[middle]!.seq <= seq) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
