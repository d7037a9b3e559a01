import type { RawBuilder, SqlBool } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';
import type { PostColumns } from '../calendar.tables.ts';

/** A stored venue or organizer: the shared post columns plus its own meta columns. */
export type LinkedPostRow = PostColumns & Readonly<Record<string, string | number | null>>;

/** Meta column values as a write sends them (already validated and normalised). */
export type MetaValues = Readonly<Record<string, string | number | null>>;

/**
 * What differs between venues and organizers, the two kinds of post an event
 * links to (the reference's "linked posts"). Everything else — storage of the
 * post fields, lists, permissions, trash, representations, routes — is shared.
 */
export interface LinkedPostKind {
  readonly type: 'venue' | 'organizer';
  readonly table: 'venues' | 'organizers';
  /** Envelope key and path segment. */
  readonly plural: 'venues' | 'organizers';
  /** The translated name field, also the wire key of the name (`venue` / `organizer`). */
  readonly nameField: 'venue' | 'organizer';
  /** Meta columns that `search` looks into (docs/calendar-venues-organizers.md). */
  readonly searchColumns: readonly string[];
  /** Column compared with the name to match an inline object to an existing record (deviation 10). */
  readonly matchColumn: 'address' | 'email';
  /** Ids of this kind linked to at least one event (alias `e`) satisfying `eventCondition`. */
  readonly linkedIds: (eventCondition: RawBuilder<SqlBool>) => RawBuilder<number>;
  /** Removes every link of these posts from events (trash and permanent delete). */
  readonly unlinkFromEvents: (db: Db, id: number) => Promise<void>;
  /** Meta columns of a new post before the write's own values. */
  readonly defaultMeta: MetaValues;
  /**
   * The kind's own write fields validated and normalised, merged over
   * `existing` (absent on create): every meta column's new value. Throws
   * `rest_invalid_param` naming the field.
   */
  readonly writeMeta: (input: Readonly<Record<string, unknown>>, existing: MetaValues) => MetaValues;
  /** Kind-specific representation fields in the reference's order (between `image` and `json_ld`). */
  readonly metaFields: (row: LinkedPostRow) => Record<string, unknown>;
  /** Fields appended after falsy ones are dropped, so always present (venues' map flags). */
  readonly alwaysFields: (row: LinkedPostRow) => Record<string, unknown>;
  /** The post's own JSON-LD object (`Place` / `Person`, without `@context`, as the reference). */
  readonly jsonLd: (post: PresentedPost) => Record<string, unknown>;
}

/** A post with its language-resolved texts, ready to be represented. */
export interface PresentedPost {
  readonly row: LinkedPostRow;
  readonly name: string;
  /** Rendered HTML (paragraphs wrapped). */
  readonly description: string;
  readonly excerpt: string;
  /** Plain text of the description, for JSON-LD. */
  readonly descriptionText: string;
  readonly slug: string;
  readonly url: string;
  readonly image: unknown;
  readonly imageUrl: string | undefined;
}
