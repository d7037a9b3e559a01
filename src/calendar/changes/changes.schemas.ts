import Type, { type Static } from 'typebox';
import { TranslationLanguageSchema } from '../common/schemas.ts';
import { ListSchema } from '../common/wire.ts';

const TOKEN = Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_.-]+$' });

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

/** `GET /changes` (issue 23): a sync starts without a token, goes on with the one it was given last. */
export const ChangesQuerySchema = Type.Object({
  sync_token: Type.Optional({ ...TOKEN, description: 'The next_sync_token of the last sync; none starts a sync' }),
  page_token: Type.Optional({ ...TOKEN, description: 'The next_page_token of the page before, within one sync' }),
  type: Type.Optional(
    ListSchema('What the sync is of: event, venue, organizer, category, tag (CSV or array; all by default); fixed by the token'),
  ),
  translation_language: Type.Optional(TranslationLanguageSchema),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, description: `Changes per page (default ${DEFAULT_PER_PAGE})` }),
  ),
});
export type ChangesQuery = Static<typeof ChangesQuerySchema>;

const ItemType = Type.Union([
  Type.Literal('event'),
  Type.Literal('venue'),
  Type.Literal('organizer'),
  Type.Literal('category'),
  Type.Literal('tag'),
]);

const ChangedSchema = Type.Object({
  id: Type.Integer(),
  type: ItemType,
  deleted: Type.Literal(false),
  item: Type.Object({}, { additionalProperties: true, description: 'The item as its list shows it to the caller' }),
});

const TombstoneSchema = Type.Object({
  id: Type.Integer(),
  type: ItemType,
  deleted: Type.Literal(true, { description: 'Removed, trashed, unpublished or no longer visible to the caller' }),
});

export const ChangesPageSchema = Type.Object({
  changes: Type.Array(Type.Union([ChangedSchema, TombstoneSchema]), { description: 'Oldest first' }),
  next_page_token: Type.Optional(Type.String({ description: 'More changes of this sync: ask again with page_token' })),
  next_sync_token: Type.Optional(Type.String({ description: 'On the last page: keep it, and sync from it next time' })),
});
export type ChangesPage = Static<typeof ChangesPageSchema>;
export type ChangeEntry = ChangesPage['changes'][number];
