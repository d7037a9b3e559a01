import Type, { type Static, type TOptional, type TSchema, type TUnsafe } from 'typebox';
import { MAX_ID, NO_NUL_PATTERN } from '../common/wire.ts';

/** The site's languages as WordPress names them (its `language` setting is a locale). */
export const LOCALES = { en: 'en_US', it: 'it_IT' } as const;

/**
 * Time formats in WordPress's notation (PHP `date()` letters) that the pages can follow: 12 h (`g`/`h`, with
 * `a`/`A`) or 24 h (`G`/`H`); empty = each language's own clock (12 h in English, 24 h in Italian).
 */
const TIME_FORMAT = '^(?:[gh]:i(?::s)? ?[aA]|[GH]:i(?::s)?|)$';
/**
 * Date formats in WordPress's notation: day (`d`, `j`, `S`), weekday (`D`, `l`), month (`m`, `n`, `F`, `M`),
 * year (`Y`, `y`), separators and `\`-escaped letters; empty = each language's long date.
 */
const DATE_FORMAT = '^(?:[djSDlmnFMYy ,./\\-]|\\\\.)*$';

const text = (description: string, maxLength: number) => Type.String({ maxLength, pattern: NO_NUL_PATTERN, description });

/** Every setting with its value in effect (the default when it was never set), as `GET /wp/v2/settings` answers. */
export const SettingsSchema = Type.Object(
  {
    title: text('Site title, in English: the pages’ header and <title>, and the name of every feed', 200),
    description: text('Tagline, in English, shown under the title', 500),
    title_it: text('Site title in Italian (Almanac); unset, the English title', 200),
    description_it: text('Tagline in Italian (Almanac); unset, the English tagline', 500),
    timezone: Type.String({
      maxLength: 64,
      description:
        'Site time zone (IANA name, WordPress’s timezone_string): events written without one, “today”, feeds; unset, SITE_TIMEZONE',
    }),
    date_format: Type.String({
      maxLength: 40,
      pattern: DATE_FORMAT,
      description: 'Date format of the pages, in WordPress’s letters (d j S D l m n F M Y y); empty: each language’s long date',
    }),
    time_format: Type.String({
      pattern: TIME_FORMAT,
      description: 'Time format of the pages: 12 h (g:i a, g:i A) or 24 h (H:i, G:i); empty: each language’s own clock',
    }),
    start_of_week: Type.Integer({
      minimum: 0,
      maximum: 6,
      description: 'First day of the week of the month and week views: 0 Sunday … 6 Saturday',
    }),
    language: Type.Enum(Object.values(LOCALES), {
      description:
        'Default language: of API answers without translation_language, and of pages without ?lang or Accept-Language; unset, DEFAULT_LANGUAGE',
    }),
    currency_symbol: text('Currency symbol of costs written without one (Almanac; The Events Calendar’s defaultCurrencySymbol)', 10),
    currency_position: Type.Enum(['prefix', 'postfix'], {
      description: 'Where that symbol goes: before (prefix) or after (postfix) the amount (Almanac)',
    }),
    site_logo: Type.Integer({
      minimum: 0,
      maximum: MAX_ID,
      description: 'Logo shown in the pages’ header instead of the title: an image of the media library by id; 0 for none',
    }),
    almanac_accent_color: Type.String({
      pattern: '^#[0-9A-Fa-f]{6}$',
      description:
        'Accent colour of the pages, #rrggbb: links (darkened or lightened as each colour scheme needs), buttons, today (Almanac)',
    }),
  },
  { $id: 'WpSettings' },
);
export type Settings = Static<typeof SettingsSchema>;
export type SettingName = keyof Settings;

/**
 * `schema`, or null. As a type list (`["integer", "null"]`), not `anyOf`: coercion would turn a null into the
 * first branch's type (`""`, `0`) and a Sunday (`0`) into a null.
 */
function nullable<S extends TSchema>(schema: S): TUnsafe<Static<S> | null> {
  const json = schema as unknown as { type?: string; enum?: readonly unknown[] };
  return Type.Unsafe<Static<S> | null>(
    json.enum === undefined ? { ...json, type: [json.type, 'null'] } : { ...json, enum: [...json.enum, null] },
  );
}

/** Which settings to change: each one given is set, `null` sets it back to its default; the others are left as they are. */
export const UpdateSettingsSchema = Type.Object(
  Object.fromEntries(Object.entries(SettingsSchema.properties).map(([name, schema]) => [name, Type.Optional(nullable(schema))])) as {
    [Name in SettingName]: TOptional<TUnsafe<Settings[Name] | null>>;
  },
);
export type UpdateSettings = Static<typeof UpdateSettingsSchema>;
