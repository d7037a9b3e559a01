import { ModifiedQueryProperties } from '../posts/posts.modified.ts';
import Type, { type Static } from 'typebox';
import { LanguageQuerySchema } from '../common/schemas.ts';
import { ListSchema, NO_NUL_PATTERN, SearchSchema, WpBooleanSchema } from '../common/wire.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from './terms.taxonomy.ts';

/** Longest term name WordPress stores. */
export const MAX_NAME_LENGTH = 200;
export const MAX_PER_PAGE = 50;
export const DEFAULT_PER_PAGE = 10;

export const TERM_ORDERBY = ['id', 'name', 'slug', 'count', 'include', 'description', 'term_group'] as const;

const TermUrlsSchema = Type.Object({
  self: Type.String(),
  collection: Type.String(),
  up: Type.Optional(Type.String()),
});

const termHead = {
  id: Type.Integer(),
  count: Type.Integer({ description: 'Published events using the term' }),
  description: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  taxonomy: Type.String(),
};

const termTail = {
  meta: Type.Array(Type.Unknown(), { maxItems: 0 }),
  url: Type.String({ description: 'Public archive page of the term' }),
  urls: TermUrlsSchema,
};

/** The term-endpoint representation, field order as emitted; tags have no `parent` and no `color`. */
export const CategorySchema = Type.Object({
  ...termHead,
  parent: Type.Integer({ description: 'Parent category id, 0 for none' }),
  ...termTail,
  color: Type.String({
    pattern: '^(?:#[0-9a-f]{6})?$',
    description: 'Colour of the category’s events on the calendar’s pages, #rrggbb; empty for none (Almanac)',
  }),
});
export const TagSchema = Type.Object({ ...termHead, ...termTail });
export type Term = Static<typeof TagSchema> & { parent?: number; color?: string };

/**
 * The term shape embedded in events: a WordPress term
 * object plus `urls` — for the events response schemas.
 */
export const EmbeddedTermSchema = Type.Object({
  name: Type.String(),
  slug: Type.String(),
  term_group: Type.Integer(),
  term_taxonomy_id: Type.Integer(),
  taxonomy: Type.String(),
  description: Type.String(),
  parent: Type.Integer(),
  count: Type.Integer(),
  filter: Type.String(),
  id: Type.Integer(),
  urls: TermUrlsSchema,
});
export type EmbeddedTerm = Static<typeof EmbeddedTermSchema>;

const termListSchema = (info: TaxonomyInfo, item: typeof CategorySchema | typeof TagSchema) =>
  Type.Object({
    rest_url: Type.String(),
    total: Type.Integer(),
    total_pages: Type.Integer(),
    [info.collection]: Type.Array(item),
    next_rest_url: Type.Optional(Type.String()),
    previous_rest_url: Type.Optional(Type.String()),
  });

export const CategoryListSchema = termListSchema(CATEGORIES, CategorySchema);
export const TagListSchema = termListSchema(TAGS, TagSchema);

/** The archive envelope; its term key is `categories` or `tags`. */
export type TermList = Static<typeof CategoryListSchema>;

const NonEmpty = (description: string, maxLength?: number) =>
  Type.String({ minLength: 1, pattern: NO_NUL_PATTERN, ...(maxLength === undefined ? {} : { maxLength }), description });

const IdReference = (description: string) => Type.Integer({ minimum: 1, description });

export const listQuerySchema = (info: TaxonomyInfo) =>
  Type.Object({
    ...LanguageQuerySchema.properties,
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Page of the archive (1-based)' })),
    per_page: Type.Optional(
      Type.Integer({ minimum: 1, default: DEFAULT_PER_PAGE, description: `Terms per page; values above ${MAX_PER_PAGE} are capped` }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Terms to skip; replaces the offset of page' })),
    search: Type.Optional(SearchSchema('Terms whose name or slug contains this text')),
    exclude: Type.Optional(ListSchema(`${info.collection} to leave out: ids, slugs or names (CSV or array)`)),
    include: Type.Optional(ListSchema(`Only these ${info.collection}: ids, slugs or names (CSV or array)`)),
    order: Type.Optional(Type.String({ pattern: '^(?:[Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$', description: 'asc (default) or desc' })),
    orderby: Type.Optional(Type.Enum([...TERM_ORDERBY], { type: 'string', description: 'Sort key (default name)' })),
    hide_empty: Type.Optional(WpBooleanSchema('Hide terms no published event uses', { default: true })),
    // A term's last modification is its last change in the change log: its texts, its place, its count.
    ...ModifiedQueryProperties,
    ...(info.hierarchical ? { parent: Type.Optional(IdReference('Only direct children of this category')) } : {}),
    post: Type.Optional(IdReference('Only terms of this event')),
    event: Type.Optional(IdReference('Only terms of this event (wins over post)')),
    slug: Type.Optional(NonEmpty('The term with this slug (any language)')),
  });

export const TermIdParamsSchema = Type.Object({
  id: Type.Integer({ minimum: 0, description: 'Term id' }),
});

const writeFields = (info: TaxonomyInfo, required: boolean) => {
  const optional = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(schema);
  const name = NonEmpty('Term name (in translation_language)', MAX_NAME_LENGTH);
  return {
    ...LanguageQuerySchema.properties,
    name: required ? name : optional(name),
    description: optional(NonEmpty('Term description (HTML, sanitized; in translation_language)')),
    slug: optional(NonEmpty('Term slug (in translation_language); must not be used by another term', 190)),
    parent: optional(
      info.hierarchical
        ? required
          ? IdReference('Parent category id')
          : Type.Integer({ minimum: 0, description: 'Parent category id; 0 moves the category to the top level (Almanac)' })
        : Type.Unknown({ description: 'Not supported: tags are not hierarchical (400 rest_taxonomy_not_hierarchical)' }),
    ),
    // Tags have no colour: a `color` sent to one is ignored, as any field a route does not take.
    ...(info.hierarchical
      ? {
          color: optional(
            Type.String({
              pattern: '^(?:#[0-9A-Fa-f]{6})?$',
              description: 'Colour of the category’s events on the pages, #rrggbb; empty removes it (Almanac)',
            }),
          ),
        }
      : {}),
  };
};

export const createBodySchema = (info: TaxonomyInfo) => Type.Object(writeFields(info, true));
export const updateBodySchema = (info: TaxonomyInfo) => Type.Object(writeFields(info, false));

export type ListTermsQuery = Static<ReturnType<typeof listQuerySchema>> & { parent?: number };
// Only categories take a colour: TypeScript reads the schema's conditional field as required.
export type TermWriteBody = Omit<Static<ReturnType<typeof updateBodySchema>>, 'color'> & { color?: unknown };
