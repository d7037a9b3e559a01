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
 * The events changed after revision `from` up to `version`: what the
 * remembered events, the carried totals and the carried pages each ask
 * after a write (events.remembered.ts, events.totals.ts, events.pages.ts).
 * The log keeps one entry per event, at its last change, so an event
 * written up to `version` may since have been written again by another
 * process and have its entry past `version`: the log is read past it, and
 * the events changed later are named too (asking again about an event that
 * did not change costs a check, missing one a stale answer). Most callers
 * were brought up to the version before, so they ask from the same
 * revision; the version reads each starting revision once for all its
 * requests. A span of the log this process has read already (its tail) is
 * answered from memory. A failed read is not remembered.
 */
export function changedEventsSince(db: Db, version: CalendarVersion, from: number): Promise<ChangedEvents> {
  const tail = tailOf(db);
  const known = tail.since(from, version.revision);
  if (known !== undefined) return Promise.resolve({ ids: known, incomplete: known.length > MAX_CHANGED });
  const reads = version.memo('changed-events', () => new Map<number, Promise<ChangedEvents>>());
  let read = reads.get(from);
  if (read === undefined) {
    read = listEventChangesAbove(db, from, MAX_CHANGED + 1).then(({ changes, floor }) => {
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
 * The latest stretch of the event change log this process has read: every event changed after revision `start`
 * up to `end`, at the place its entry had when read. An entry moves to the end of the log when its event changes
 * again (ADR 13), so an event changed within the span may be held past the revision of that change, anywhere up
 * to `end`: a span is answered with every event held after its start. Revisions commit in order (every calendar
 * write takes the revision first), so a read that finds an entry has found every entry numbered before it: the
 * span read reaches the last of them.
 */
export class ChangeTail {
  /** The revisions held: every change after `start` up to `end`; undefined before the first read. */
  private span: { start: number; end: number } | undefined;
  /** Ascending by revision. */
  private changes: { readonly seq: number; readonly id: number }[] = [];

  constructor(private readonly maxChanges: number) {}

  /**
   * The events changed after `from` up to `to` and perhaps some changed after `to`, without duplicates; undefined
   * when the tail does not hold that whole span.
   */
  since(from: number, to: number): number[] | undefined {
    if (this.span === undefined || from < this.span.start || to > this.span.end) return undefined;
    const ids = new Set<number>();
    for (let index = this.firstAfter(from); index < this.changes.length; index += 1) ids.add(this.changes[index]!.id);
    return [...ids];
  }

  /**
   * Takes in a read of the log after `from` (its changes ascending by revision), made once revision `to` had
   * committed: it extends the tail when it starts within it, replaces it when it reaches further, else it is older
   * and left out. What it read up to the tail's end the tail holds already.
   */
  add(from: number, to: number, changes: readonly EventChange[]): void {
    const end = Math.max(to, changes.at(-1)?.seq ?? to);
    const span = this.span;
    if (span !== undefined && from >= span.start && from <= span.end) {
      if (end <= span.end) return;
      for (const change of changes) if (change.seq > span.end) this.changes.push({ seq: change.seq, id: change.id });
      span.end = end;
    } else if (span === undefined || end > span.end) {
      this.span = { start: from, end };
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
