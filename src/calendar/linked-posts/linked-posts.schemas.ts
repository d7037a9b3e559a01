import Type, { type TProperties } from 'typebox';
import { InKeyOrder } from '../../platform/openapi/contract.ts';
import { POST_STATUSES } from '../posts/posts.access.ts';
import { ModifiedQueryProperties } from '../posts/posts.modified.ts';
import { LanguageQuerySchema } from '../common/schemas.ts';
import { ListSchema, SearchSchema, WpBooleanSchema } from '../common/wire.ts';
import { ImageObjectSchema } from '../common/images.ts';
import type { LinkedPostKind } from './linked-posts.kind.ts';

/** Largest `per_page`; larger values are capped, as the reference does. */
export const MAX_PER_PAGE = 50;
export const DEFAULT_PER_PAGE = 10;

export function listQuerySchema(kind: Pick<LinkedPostKind, 'type' | 'plural'>) {
  return Type.Object({
    page: Type.Integer({ minimum: 1, default: 1, description: 'The archive page to return' }),
    per_page: Type.Integer({
      minimum: 1,
      default: DEFAULT_PER_PAGE,
      description: `The number of ${kind.plural} per page (at most ${MAX_PER_PAGE}; larger values are capped)`,
    }),
    search: Type.Optional(
      SearchSchema(`Words that one field of the ${kind.type} (name, description, excerpt or contact/address details) must all contain`),
    ),
    event: Type.Optional(Type.Integer({ minimum: 1, description: `Only the ${kind.plural} linked to this event` })),
    has_events: Type.Optional(
      WpBooleanSchema(`true: only ${kind.plural} linked to a published, future or private event; false: only those linked to none`),
    ),
    only_with_upcoming: Type.Optional(
      WpBooleanSchema(`true: only ${kind.plural} linked to an upcoming event the caller may list; false: no filter`),
    ),
    status: Type.Optional(ListSchema('Post statuses to list (CSV or array); any: every status but trash')),
    password: Type.Optional(Type.String({ description: 'Unlocks password-protected items' })),
    context: Type.Optional(Type.String({ description: 'edit: items the caller may edit are not stripped' })),
    ...ModifiedQueryProperties,
    ...LanguageQuerySchema.properties,
  });
}

export const IdParamsSchema = Type.Object({ id: Type.Integer({ minimum: 0, description: 'The post id' }) });
export const SlugParamsSchema = Type.Object({ slug: Type.String({ minLength: 1, description: 'The post slug' }) });

export const ReadQuerySchema = Type.Object({
  password: Type.Optional(Type.String({ description: 'Unlocks a password-protected item' })),
  context: Type.Optional(Type.String({ description: 'edit: who may edit the item sees it unstripped' })),
  ...LanguageQuerySchema.properties,
});

export const DeleteQuerySchema = Type.Object({
  force: Type.Optional(WpBooleanSchema('true: delete permanently instead of trashing (editors and above)')),
  password: Type.Optional(Type.String({ description: 'Accepted and ignored' })),
  ...LanguageQuerySchema.properties,
});

/** Write arguments shared by venues and organizers (the reference's), plus `excerpt`, `slug` and `password`. */
export const PostWriteProperties = {
  author: Type.Optional(Type.Integer({ minimum: 1, description: 'The author: an existing user id (editors and above for another user)' })),
  date: Type.Optional(Type.String({ description: 'Publication date in the site time zone (any supported date format)' })),
  date_utc: Type.Optional(Type.String({ description: 'Publication date in UTC (any supported date format)' })),
  description: Type.Optional(Type.String({ description: 'HTML description (sanitized)' })),
  excerpt: Type.Optional(Type.String({ description: 'HTML excerpt (sanitized)' })),
  slug: Type.Optional(Type.String({ description: 'The slug in the request language; made unique' })),
  status: Type.Optional(
    Type.Enum([...POST_STATUSES], { type: 'string', description: 'Post status; scaled down for users who may not publish' }),
  ),
  image: Type.Optional(
    Type.Union([Type.Integer(), Type.String()], { description: 'A stored image id or an http(s) image URL; empty or 0 removes it' }),
  ),
  password: Type.Optional(Type.String({ description: 'Protects the content with a password; empty removes it' })),
  ...LanguageQuerySchema.properties,
} satisfies TProperties;

/** The representation fields every venue and organizer shares, before its own ones. */
export function representationHead(nameField: string): TProperties {
  return {
    id: Type.Integer(),
    author: Type.Optional(Type.String({ description: 'Author user id, as a string; absent when none' })),
    status: Type.Optional(Type.String()),
    date: Type.Optional(Type.String()),
    date_utc: Type.Optional(Type.String()),
    modified: Type.Optional(Type.String()),
    modified_utc: Type.Optional(Type.String()),
    url: Type.Optional(Type.String({ description: 'Permalink' })),
    [nameField]: Type.Optional(Type.String({ description: 'Name' })),
    description: Type.Optional(Type.String({ description: 'Rendered HTML' })),
    excerpt: Type.Optional(Type.String({ description: 'Rendered HTML' })),
    slug: Type.Optional(Type.String()),
    image: Type.Optional(ImageSchema),
  };
}

/** `{url, id, extension, …}`, or `false` (only when stripped: no image is an absent key). */
export const ImageSchema = Type.Union([ImageObjectSchema, Type.Literal(false)]);

export const JsonLdSchema = Type.Object({}, { additionalProperties: true, description: 'schema.org JSON-LD (single GET only)' });

// Response properties after the first are declared optional even when always present: the serializer
// emits required properties first, and the key order must stay the reference's.
export const GlobalIdProperties = {
  global_id: Type.Optional(Type.String({ description: 'Always present' })),
  global_id_lineage: Type.Optional(Type.Array(Type.String(), { description: 'Always present' })),
} satisfies TProperties;

/** `{ venues|organizers: [...], rest_url, next_rest_url?, previous_rest_url?, total, total_pages }`, in that order. */
export function envelopeSchema(plural: string, item: ReturnType<typeof Type.Object>) {
  return InKeyOrder(
    Type.Object({
      [plural]: Type.Array(item),
      rest_url: Type.String(),
      next_rest_url: Type.Optional(Type.String()),
      previous_rest_url: Type.Optional(Type.String()),
      total: Type.Integer(),
      total_pages: Type.Integer(),
    }),
  );
}
