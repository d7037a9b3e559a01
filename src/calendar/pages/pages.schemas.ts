import Type, { type Static } from 'typebox';
import { LANGUAGES } from '../../config/config.ts';
import { MAX_ID, SearchSchema } from '../common/wire.ts';

/** The query strings of the public pages: validated by their routes (a bad value is a 400 page). */

const Language = Type.Optional(Type.Enum([...LANGUAGES], { type: 'string' }));
const Slug = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000,]+$' });
const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });

export const ViewQuerySchema = Type.Object({
  lang: Language,
  search: Type.Optional(SearchSchema('Words of the events shown')),
  category: Type.Optional(Slug),
  tag: Type.Optional(Slug),
  venue: Type.Optional(Id),
  organizer: Type.Optional(Id),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  past: Type.Optional(Type.Enum(['0', '1'], { type: 'string' })),
});
export type ViewQuery = Static<typeof ViewQuerySchema>;

export const ItemQuerySchema = Type.Object({ lang: Language, page: ViewQuerySchema.properties.page });

export const PasswordBodySchema = Type.Object({ password: Type.String({ minLength: 1, maxLength: 500 }), lang: Language });
export type PasswordBody = Static<typeof PasswordBodySchema>;

export const MonthParamsSchema = Type.Object({ month: Type.String() });
export const DayParamsSchema = Type.Object({ day: Type.String() });
export const SlugParamsSchema = Type.Object({ slug: Type.String() });

/** Text that may be a slug: anything else names no page (a 404, as an unknown slug). */
export function isSlugText(text: string): boolean {
  return text.length > 0 && text.length <= 200 && !text.includes('\u0000');
}
export const OccurrenceParamsSchema = Type.Object({ slug: SlugParamsSchema.properties.slug, day: Type.String() });
