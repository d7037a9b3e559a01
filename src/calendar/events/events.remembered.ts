import type { Kysely } from 'kysely';
import { LANGUAGES, type Language } from '../../config/config.ts';
import type { Database } from '../../platform/db/schema.ts';
import { ByteBoundedMap } from '../../platform/memory/byte-bounded-map.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { changedEventsSince } from './events.changed.ts';
import type { EventRow } from './events.repository.ts';
import type { EventResponse } from './events.schemas.ts';
import type { EmbeddedTerm } from '../terms/terms.schemas.ts';

type Db = Kysely<Database>;

/** An event as anonymous readers are shown it, with the row it was made from. */
export interface RememberedEvent {
  readonly row: EventRow;
  /** Frozen; replaced only by itself with newer term counts (`recounted`). */
  event: EventResponse;
  /** Its JSON-LD, once a single read has made it. */
  jsonLd: Record<string, unknown> | undefined;
}

/**
 * What an entry weighs: its representation's JSON text, four times (objects take more room than their text; the
 * row and JSON-LD; the text itself, kept for the lists that show it, events.list-text.ts).
 */
const weigh = (entry: RememberedEvent) => 4 * JSON.stringify(entry.event).length;

/**
 * Events as anonymous readers are shown them, remembered per event and
 * language (issue 26), so that a write to one event recomputes that event,
 * not every answer (remembered answers go with each version, ADR 9).
 *
 * An event's representation changes only with a change the change log
 * records for it: its row, texts and links, and what it embeds (a venue's
 * edit moves its events to the end of the log, 2026-11-28T0100-changes),
 * except term counts, which the presenter counts again. So before a read
 * uses what is remembered, the events changed since the last version seen
 * are forgotten (`catchUp`, one statement per new version, whatever process
 * wrote). A representation made at an older version than the last one
 * caught up to is not kept: a change between the two would already have
 * been forgotten. A scheduled publication changes what is public without a
 * write, so when one passes everything is forgotten.
 */
export class RememberedEvents {
  private readonly entries: ByteBoundedMap<RememberedEvent>;
  /** The revision up to which changes are forgotten; undefined before the first version. */
  private revision: number | undefined;
  /** The next scheduled publication of the version last caught up to. */
  private until: string | null = null;
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    maxBytes: number,
  ) {
    this.entries = new ByteBoundedMap(maxBytes, weigh);
  }

  /** Forgets what changed up to `version`; reads may then use what is remembered. */
  catchUp(version: CalendarVersion): Promise<void> {
    if (this.revision === version.revision && (this.until === null || version.from < this.until)) return this.catchingUp;
    this.catchingUp = this.catchingUp.catch(() => undefined).then(() => this.forgetChanges(version));
    return this.catchingUp;
  }

  get(id: number, language: Language): RememberedEvent | undefined {
    return this.entries.get(keyOf(id, language));
  }

  /** Keeps `event`, made from `row` at `version` (caught up first), unless a newer version was caught up to since. */
  remember(row: EventRow, language: Language, version: CalendarVersion, event: EventResponse): void {
    if (this.revision !== undefined && version.revision < this.revision) return;
    this.entries.set(keyOf(row.id, language), { row, event: Object.freeze(event), jsonLd: undefined });
  }

  /**
   * `entry`'s representation with the term counts of `version` (a count changes without a change of the event):
   * the entry's own while its counts hold. Else a new one, which takes the entry's place when `version` is the
   * newest caught up to, so that later reads show it as it is and lists send its kept text (events.list-text.ts).
   */
  recounted(entry: RememberedEvent, counts: ReadonlyMap<number, number>, version: CalendarVersion): EventResponse {
    const current = (term: EmbeddedTerm) => counts.get(term.id) ?? term.count;
    const holds = (term: EmbeddedTerm) => current(term) === term.count;
    const { event } = entry;
    if (event.categories.every(holds) && event.tags.every(holds)) return event;
    const recount = (term: EmbeddedTerm): EmbeddedTerm => ({ ...term, count: current(term) });
    const fresh = { ...event, categories: event.categories.map(recount), tags: event.tags.map(recount) };
    if (version.revision === this.revision) entry.event = Object.freeze(fresh);
    return fresh;
  }

  private async forgetChanges(version: CalendarVersion): Promise<void> {
    if (this.until !== null && version.from >= this.until) this.entries.clear();
    this.until = version.until;
    const from = this.revision;
    if (from === undefined || version.revision <= from) {
      this.revision = Math.max(from ?? version.revision, version.revision);
      return;
    }
    const { ids, incomplete } = await changedEventsSince(this.db, version, from);
    if (incomplete) this.entries.clear();
    else for (const id of ids) for (const language of LANGUAGES) this.entries.delete(keyOf(id, language));
    this.revision = Math.max(this.revision ?? version.revision, version.revision);
  }
}

function keyOf(id: number, language: Language): string {
  return `${id}:${language}`;
}
