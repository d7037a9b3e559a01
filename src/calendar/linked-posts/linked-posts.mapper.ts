import { effectiveStatus } from '../posts/posts.access.ts';
import type { LinkedPostKind, PresentedPost } from './linked-posts.kind.ts';

export interface RepresentationOptions {
  /** Single GET: adds `json_ld` (never for a password-protected post). */
  readonly single: boolean;
  /** Locked password-protected post: content fields replaced (deviation 11). */
  readonly stripped: boolean;
  readonly globalId: string;
  readonly now?: Date;
}

/** The reference's replacement values for the keys a venue or organizer can have; the name stays (deviation 11). */
const STRIPPED: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  website: '',
  show_map: null,
  show_map_link: null,
  email: '',
  phone: '',
  geo_lat: 0,
  geo_lng: 0,
  stateprovince: '',
  zip: '',
  province: '',
  country: '',
  city: '',
  address: '',
};

// A coordinate of 0 (the equator, the Greenwich meridian) is a place, not an empty field: a pair set is shown whole.
const COORDINATES = new Set(['geo_lat', 'geo_lng']);

/** JSON-LD objects leave out what is unknown. */
export function withoutEmpty(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== '' && value !== undefined));
}

function isFalsy(value: unknown): boolean {
  return (
    value === '' ||
    value === false ||
    value === '0' ||
    value === 0 ||
    value === null ||
    value === undefined ||
    (Array.isArray(value) && value.length === 0)
  );
}

/**
 * The venue (§8.2) or organizer (§8.3) representation: the fields in the
 * reference's order with every falsy value dropped, then the always-present
 * ones appended; a locked post has its content fields replaced in place.
 */
export function toLinkedPostResponse(kind: LinkedPostKind, post: PresentedPost, options: RepresentationOptions): Record<string, unknown> {
  const { row } = post;
  const built: Record<string, unknown> = {
    id: row.id,
    author: String(row.author_id ?? 0),
    status: effectiveStatus(row, options.now),
    date: row.date,
    date_utc: row.date_utc,
    modified: row.modified,
    modified_utc: row.modified_utc,
    url: post.url,
    [kind.nameField]: post.name,
    description: post.description,
    excerpt: post.excerpt,
    slug: post.slug,
    image: post.image,
    ...kind.metaFields(row),
  };
  if (options.single && row.password_hash === null) built.json_ld = kind.jsonLd(post);
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(built)) {
    if (!isFalsy(value) || COORDINATES.has(key)) result[key] = value;
  }
  Object.assign(result, kind.alwaysFields(row), { global_id: options.globalId, global_id_lineage: [options.globalId] });
  if (options.stripped) {
    for (const key of Object.keys(result)) {
      if (key in STRIPPED) result[key] = STRIPPED[key];
    }
  }
  return result;
}
