import type { Generated } from 'kysely';

/** Calendar tables (migration 2026-11-22T0420-calendar). Dates are `YYYY-MM-DD HH:MM:SS` text. */
declare module '../platform/db/schema.ts' {
  interface Database {
    post_ids: PostIdTable;
    images: ImageTable;
    events: EventTable;
    venues: VenueTable;
    organizers: OrganizerTable;
    event_organizers: EventOrganizerTable;
    terms: TermTable;
    event_terms: EventTermTable;
    event_occurrences: EventOccurrenceTable;
    event_ical_uids: EventIcalUidTable;
    caldav_resource_names: CaldavResourceNameTable;
    imported_items: ImportedItemTable;
    translations: TranslationTable;
    slugs: SlugTable;
    calendar_changes: CalendarChangeTable;
    calendar_change_log: CalendarChangeLogTable;
    calendar_webhooks: WebhookTable;
    calendar_webhook_deliveries: WebhookDeliveryTable;
    calendar_webhook_dispatch: WebhookDispatchTable;
    calendar_webhook_announced: WebhookAnnouncedTable;
    site_settings: SiteSettingTable;
  }
}

/** Bumped by every write to a table a calendar response shows or depends on (migration 2026-11-24T0100). */
declare module '../platform/db/revisions.ts' {
  interface RevisionNames {
    calendar: true;
    /** Bumped with `calendar` by every write to the site's settings (migration 2026-12-03T0300). */
    settings: true;
  }
}

export type PostType = 'event' | 'venue' | 'organizer' | 'image';
export type PostStatus = 'publish' | 'future' | 'draft' | 'pending' | 'private' | 'trash';

export interface PostIdTable {
  id: Generated<number>;
  type: PostType;
}

export interface ImageTable {
  id: number;
  /** A recorded URL; an upload's own is its `file`. */
  url: string;
  extension: string;
  author_id: number | null;
  created_at: string;
  /** An upload's stored file (`2026/12/poster.jpg`), null for a recorded URL (migration 2026-12-03T0100-media). */
  file: Generated<string | null>;
  mime_type: Generated<string>;
  width: Generated<number>;
  height: Generated<number>;
  filesize: Generated<number>;
  /** JSON: the sizes made from the upload (`media.process.ts`). */
  sizes: Generated<string>;
  slug: Generated<string>;
  title: Generated<string>;
  alt_text: Generated<string>;
  caption: Generated<string>;
  parent_id: Generated<number | null>;
}

/** Columns shared by events, venues and organizers (the reference's post fields). */
export interface PostColumns {
  id: number;
  author_id: number | null;
  status: string;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
  password_hash: string | null;
  image_id: number | null;
}

export interface EventTable extends PostColumns {
  parent_id: number | null;
  timezone: string;
  all_day: number;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  /** JSON array of the cost strings as given; null when there is no cost. */
  cost: string | null;
  currency_symbol: string;
  currency_position: string;
  currency_code: string;
  /** null when never set: the payload then falls back to the permalink. */
  website: string | null;
  show_map: number;
  show_map_link: number;
  hide_from_listings: number;
  sticky: number;
  featured: number;
  venue_id: number | null;
  /** A series' RFC 5545 lines (JSON array), on the series only (occurrences show their series'); null elsewhere. */
  recurrence: string | null;
  /** An occurrence's start as its rule gave it (local to its zone, and UTC); null on series and single events. */
  original_start_local: string | null;
  original_start_utc: string | null;
  /** 1 on an occurrence changed on its own: edits of its series leave it as it is. */
  is_exception: Generated<number>;
  /** On a series whose rule has no end: the wall time up to which its occurrences are stored. */
  recurrence_horizon: Generated<string | null>;
  /** RFC 5545 SEQUENCE: one more on every edit of the event. */
  sequence: Generated<number>;
}

/** The UID an imported event came with (events born here have none: theirs is made of their id). */
export interface EventIcalUidTable {
  uid: string;
  event_id: number;
}

/** The address a CalDAV client put a new event at, when it is not the event's UID (migration 2026-12-04T0500). */
export interface CaldavResourceNameTable {
  name: string;
  event_id: number;
}

/** Where an imported event, venue or organizer came from (an importer and its key there), and a digest of what it said. */
export interface ImportedItemTable {
  source: string;
  item_key: string;
  post_id: number;
  digest: string;
}

/** The id of every occurrence a series has had, by its original start: ids stay stable across edits. */
export interface EventOccurrenceTable {
  series_id: number;
  original_start_utc: string;
  id: number;
}

export interface VenueTable extends PostColumns {
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  stateprovince: string;
  zip: string;
  phone: string;
  website: string;
  show_map: number;
  show_map_link: number;
  geo_lat: number | null;
  geo_lng: number | null;
}

export interface OrganizerTable extends PostColumns {
  phone: string;
  website: string;
  email: string;
}

export interface EventOrganizerTable {
  event_id: number;
  organizer_id: number;
  position: number;
}

export type Taxonomy = 'category' | 'tag';

export interface TermTable {
  id: Generated<number>;
  taxonomy: Taxonomy;
  parent_id: number | null;
  /** Links to events stored as `publish`, maintained by the database (migration 2026-11-24T0300). */
  published_count: Generated<number>;
  /** Categories' colour, `#rrggbb` in lower case (migration 2026-12-04T0100); null: none. */
  color: string | null;
}

export interface EventTermTable {
  event_id: number;
  term_id: number;
}

/** Resource types that have translatable fields and slugs. */
export type TranslatableType = 'event' | 'venue' | 'organizer' | Taxonomy;

export interface TranslationTable {
  resource_type: TranslatableType;
  resource_id: number;
  language: string;
  field: string;
  value: string;
}

export interface SlugTable {
  resource_type: TranslatableType;
  slug: string;
  resource_id: number;
}

/** What sync and versions know of the items a change touched (migration 2026-11-28T0100-changes). */
export type ChangeType = 'event' | 'venue' | 'organizer' | Taxonomy;

/** One row per item that ever existed: its version (`seq`) and its place in the change log. */
export interface CalendarChangeTable {
  type: ChangeType;
  item_id: number;
  /** The calendar revision of the item's last change (bigint: a string on PostgreSQL). */
  seq: number | string;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  changed_at: string;
  /** 1 once anonymous readers could list the item. */
  ever_public: Generated<number>;
  author_id: number | null;
  /** A scheduled item's publication date (UTC): it changes then, without a write. */
  due_at: string | null;
  /**
   * The number of the item's last change anonymous readers can see: `seq`, but for the changes of what it embeds
   * while that was hidden (a draft venue renamed). Maintained by migration 2026-12-02T0100-changes-public-place.
   */
  public_seq: Generated<number | string>;
  /** A one-shot flag a writer sets to keep `public_seq` where it was; the same trigger clears it. */
  hidden: Generated<number>;
  /** 1 while anonymous lists show the item (migration 2026-12-01T0100-changes-audiences, which keeps the four below). */
  public_now: Generated<number>;
  /** The number of the change that last took the item out of anonymous lists; 0 if none. */
  public_left: Generated<number | string>;
  /** 1 while lists of every status but trash show it (editors', and its author's). */
  listed_now: Generated<number>;
  /** The number of the change that last took it out of those; 0 if none. */
  listed_left: Generated<number | string>;
}

export interface CalendarChangeLogTable {
  id: number;
  /** The highest number pruned from the log: tokens before it are expired. */
  floor_seq: number | string;
  /** Sync tokens are sealed under a key derived from it (changes.tokens.ts), the same for every process. */
  token_key: string;
}

/** A webhook subscription (migration 2026-11-29T0100-webhooks). Times are ISO 8601 UTC with milliseconds. */
export interface WebhookTable {
  id: Generated<number>;
  url: string;
  description: string;
  /** The event names it receives, as a JSON array (`event.created`…, or `*`). */
  events: string;
  active: number;
  /** `whsec_…`: signs deliveries; shown once, when made or rotated. */
  secret: string;
  /** The secret before the last rotation, which also signs until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** Failed attempts since the last success: at WEBHOOK_DISABLE_AFTER the subscription is disabled. */
  failure_count: number;
  /** After a failed attempt nothing is sent to the subscriber before this time (its next retry). */
  retry_after: string | null;
  /** Why it was disabled by the worker (a 410, too many failures); null when an administrator set `active`. */
  disabled_reason: string | null;
  author_id: number;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';

/** One message to one subscriber, with its attempts so far: the outbox the delivery workers drain. */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  webhook_id: number;
  /** Standard Webhooks' `webhook-id`: the same on every attempt and on a replay, for receivers to de-duplicate. */
  message_id: string;
  /** `event.updated`…, or `webhook.ping`. */
  event: string;
  item_type: ChangeType | null;
  item_id: number | null;
  /** The exact body sent. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  /** While `sending`: when the attempt counts as lost (its process died) and may be made again. */
  lease_until: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  response_ms: number | null;
  last_error: string | null;
  created_at: string;
}

/** Where the change log has been turned into deliveries: after (seq, type, item_id). */
export interface WebhookDispatchTable {
  id: number;
  seq: number | string;
  type: string;
  item_id: number;
}

/** The items subscribers were last told anonymous readers see (a `created` or `updated`), until told of their removal. */
export interface WebhookAnnouncedTable {
  type: ChangeType;
  item_id: number;
}

/** The site's settings that were set, one row each (migration 2026-12-03T0300-site-settings). */
export interface SiteSettingTable {
  name: string;
  /** JSON text. */
  value: string;
}
