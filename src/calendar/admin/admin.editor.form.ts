import Type, { type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Language } from '../../config/config.ts';
import { classifyError } from '../../platform/http/classify-error.ts';
import { can } from '../calendar.capabilities.ts';
import type { RequestContext } from '../common/context.ts';
import type { EventResponse } from '../events/events.schemas.ts';
import { findTexts } from '../posts/posts.repository.ts';
import { plainText } from '../pages/pages.present.ts';
import { termsOf } from '../terms/terms.mapper.ts';
import { invalidParam } from '../common/wire.ts';
import type { AdminContext } from './admin.context.ts';
import { GENERIC_REASON, refusalText } from './admin.refusals.i18n.ts';
import { recurrenceLinesOf, repeatFieldsOf, type RepeatFields } from './admin.recurrence.ts';

/** The event form's fields: as the browser sends them, as the API takes them, as a stored event fills them. */

const CHOICES_MAX = 100;
export const TEXTS = ['title', 'description', 'excerpt'] as const;
// No bounds of its own beyond the request's size: what the API takes, the form takes.
const Text = () => Type.Optional(Type.String());
const Many = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]));

export const EditorParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const EditorQuery = Type.Object({
  saved: Type.Optional(Type.String({ maxLength: 1 })),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
});

/** The form as the browser sends it: text; the API's schema judges what it means. */
export const EditorBody = Type.Object({
  csrf: Type.String({ maxLength: 200 }),
  // The row version the form was opened at (a number the server wrote; empty on a new event).
  version: Type.Optional(Type.String({ pattern: '^\\d{0,15}$' })),
  scope: Text(),
  title: Text(),
  description: Text(),
  excerpt: Text(),
  title_it: Text(),
  description_it: Text(),
  excerpt_it: Text(),
  start: Text(),
  end: Text(),
  all_day: Text(),
  timezone: Text(),
  repeats: Text(),
  interval: Text(),
  byday: Many,
  monthly: Text(),
  ends: Text(),
  until: Text(),
  count: Text(),
  exceptions: Text(),
  rrule: Text(),
  venue: Text(),
  venue_address: Text(),
  venue_city: Text(),
  venue_zip: Text(),
  venue_country: Text(),
  organizers: Many,
  categories: Many,
  tags: Text(),
  cost: Text(),
  website: Text(),
  featured: Text(),
  image: Text(),
  // A new image to upload (multipart), as the editor's multipart reading gives it.
  image_file: Type.Optional(Type.Object({ filename: Type.String(), bytes: Type.Unsafe<Buffer>({}) })),
  preview: Text(),
  status: Text(),
  password: Text(),
  date: Text(),
});
export type EditorBody = Static<typeof EditorBody>;
/** The fields "Preview dates" reads (the editor's script sends them as they change). */
export const PREVIEW_FIELDS = [
  'start',
  'all_day',
  'timezone',
  'repeats',
  'interval',
  'byday',
  'monthly',
  'ends',
  'until',
  'count',
  'exceptions',
  'rrule',
] as const;

/** What the form shows: single values by field name, and the fields that carry several. */
export interface FormValues {
  readonly text: Readonly<Record<string, string>>;
  readonly byday: readonly string[];
  readonly organizers: readonly string[];
  readonly categories: readonly string[];
}

// An API parameter's field in the form.
const FIELD_OF_PARAM: Readonly<Record<string, string>> = {
  start_date: 'start',
  end_date: 'end',
  organizer: 'organizers',
  recurrence: 'repeats',
};

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : [value].flat());
const localInput = (stamp: string) => stamp.slice(0, 16).replace(' ', 'T');
export const apiDate = (input: string) => input.trim().replace('T', ' ');

let zones: string[] | undefined;
export function timeZones(): string[] {
  zones ??= [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])];
  return zones;
}

export function valuesOfBody(body: Partial<EditorBody>): FormValues {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') text[name] = value;
  return { text, byday: listOf(body.byday), organizers: listOf(body.organizers), categories: listOf(body.categories) };
}

/** The form of a new event: a draft in the site's zone that does not repeat. */
export function newValues(caller: RequestContext): FormValues {
  return {
    text: { timezone: caller.site.timezone, status: 'draft', repeats: 'none' },
    byday: [],
    organizers: [],
    categories: [],
  };
}

/** The form of a stored event, its texts as they were typed (in each language), not as rendered. */
/** An event opened in the form: as the API answers it, its version, and its costs as they were typed. */
export interface Opened {
  readonly event: EventResponse;
  readonly version: number | undefined;
  readonly costs: string;
}

export async function storedValues(context: AdminContext, { event, costs }: Pick<Opened, 'event' | 'costs'>): Promise<FormValues> {
  const rows = await findTexts(context.services.deps.store.db, [['event', [event.id]]], TEXTS);
  const typed = (language: string, field: string) => rows.find((row) => row.language === language && row.field === field)?.value;
  const venue = Array.isArray(event.venue) ? '' : String((event.venue as { venue?: unknown }).venue ?? '');
  const { byday, ...repeat } = repeatFieldsOf(event.recurrence);
  return {
    text: {
      title: typed('en', 'title') ?? event.title,
      description: typed('en', 'description') ?? event.description,
      excerpt: typed('en', 'excerpt') ?? event.excerpt,
      title_it: typed('it', 'title') ?? '',
      description_it: typed('it', 'description') ?? '',
      excerpt_it: typed('it', 'excerpt') ?? '',
      start: localInput(event.start_date),
      end: localInput(event.end_date),
      all_day: event.all_day === true ? '1' : '',
      timezone: event.timezone,
      ...repeat,
      venue,
      tags: event.tags.map((tag) => tag.name).join(', '),
      // As typed, not as shown (the site's currency symbol added): saved again, it stays as it was.
      cost: costs,
      website: event.website,
      featured: event.featured === true ? '1' : '',
      image: event.image === false ? '' : String(event.image.id),
      status: event.status === 'future' ? 'publish' : event.status,
      date: localInput(event.date),
      scope: 'this',
    },
    byday: [...byday],
    organizers: event.organizer.map((organizer) => String((organizer as { organizer?: unknown }).organizer ?? '')),
    categories: event.categories.map((term) => String(term.id)),
  };
}

interface Named {
  readonly id: number;
  readonly name: string;
}

/** What the pickers offer: existing venues, organizers, categories (as a tree), images. */
export async function choicesOf(context: AdminContext, caller: RequestContext) {
  const { venues, organizers, categories, media } = context.services;
  const [venueList, organizerList, categoryList, images] = await Promise.all([
    venues.list({ page: 1, per_page: CHOICES_MAX }, caller, ''),
    organizers.list({ page: 1, per_page: CHOICES_MAX }, caller, ''),
    categories.list({ page: 1, per_page: CHOICES_MAX, parent: undefined, orderby: 'name', order: 'asc', hide_empty: false }, caller),
    caller.user !== null && can(caller.user.role, 'upload_files') ? media.list(caller.user, { page: 1, per_page: CHOICES_MAX }) : undefined,
  ]);
  const named = (items: readonly Record<string, unknown>[], key: string): Named[] =>
    // As typed, not as the API renders it (`&amp;`): the name a person picks is compared with these.
    items.map((item) => ({ id: Number(item.id), name: plainText(item[key] ?? item.title ?? '') }));
  const terms = termsOf(categoryList.list, 'categories');
  // Each category after its parent, indented by its depth.
  const tree: { id: number; name: string; depth: number }[] = [];
  const place = (parent: number, depth: number) => {
    for (const term of terms.filter((candidate) => (candidate.parent ?? 0) === parent)) {
      tree.push({ id: term.id, name: term.name, depth: Math.min(depth, 4) });
      if (depth < 10) place(term.id, depth + 1);
    }
  };
  place(0, 0);
  return {
    venues: named(venueList.items, 'venue'),
    organizers: named(organizerList.items, 'organizer'),
    categories: tree,
    images: images?.items.map((image) => ({ id: image.id, name: image.title.rendered || image.slug })) ?? [],
  };
}
export type Choices = Awaited<ReturnType<typeof choicesOf>>;

/** A picked name: the id of the existing one of that name (or an id typed as such), else the name for the API to find or create. */
function pickedOf(typed: string, existing: readonly Named[]): number | string {
  const name = typed.trim();
  if (/^\d+$/.test(name)) return Number(name);
  return existing.find((item) => item.name.toLocaleLowerCase() === name.toLocaleLowerCase())?.id ?? name;
}

function venueOf(text: Readonly<Record<string, string>>, choices: Choices): unknown {
  const picked = pickedOf(text.venue ?? '', choices.venues);
  if (picked === '') return '';
  if (typeof picked === 'number') return picked;
  const address = { address: text.venue_address, city: text.venue_city, zip: text.venue_zip, country: text.venue_country };
  return {
    venue: picked,
    ...Object.fromEntries(Object.entries(address).filter(([, value]) => value !== undefined && value.trim() !== '')),
  };
}

/** The Repeats builder's fields of the form's values. */
export function repeatOf(values: FormValues): RepeatFields {
  const { text } = values;
  return {
    repeats: text.repeats ?? 'none',
    interval: text.interval ?? '',
    byday: values.byday,
    monthly: text.monthly ?? 'day',
    ends: text.ends ?? 'never',
    until: text.until ?? '',
    count: text.count ?? '',
    exceptions: text.exceptions ?? '',
    rrule: text.rrule ?? '',
  };
}

/** The API's body of the form's values, or the form's field errors. */
export function apiBodyOf(
  values: FormValues,
  choices: Choices,
  editing: EventResponse | undefined,
): { body: Record<string, unknown> } | { errors: Map<string, string> } {
  const { text } = values;
  const occurrence = editing?.recurring_event_id !== undefined && text.scope !== 'following';
  const built = recurrenceLinesOf(repeatOf(values), apiDate(text.start ?? '').slice(0, 10));
  if ('field' in built) return { errors: new Map([[built.field, built.problem]]) };
  const body: Record<string, unknown> = {
    title: text.title ?? '',
    description: text.description ?? '',
    excerpt: text.excerpt ?? '',
    start_date: apiDate(text.start ?? ''),
    end_date: apiDate(text.end ?? ''),
    all_day: text.all_day === '1',
    timezone: text.timezone ?? '',
    venue: venueOf(text, choices),
    organizer: values.organizers
      .filter((name) => name.trim() !== '')
      .map((name) => {
        const picked = pickedOf(name, choices.organizers);
        return typeof picked === 'number' ? picked : { organizer: picked };
      }),
    categories: [...values.categories],
    tags: text.tags ?? '',
    cost: text.cost ?? '',
    website: text.website ?? '',
    featured: text.featured === '1',
    image: text.image ?? '',
  };
  if (editing === undefined && body.venue === '') delete body.venue;
  if (!occurrence) {
    body.status = text.status ?? 'draft';
    // A publication date in the future makes a published event scheduled (the API's `date`); empty means now.
    const date = apiDate(text.date ?? '');
    if (date !== '' && (editing === undefined || date !== apiDate(localInput(editing.date)))) body.date = date;
    if ((text.password ?? '') !== '') body.password = text.password;
    const stored = (editing?.recurrence ?? []).join('\n');
    if (built.lines.join('\n') !== stored) body.recurrence = built.lines;
  }
  if (text.scope === 'following') body.scope = 'following';
  return { body };
}

/** Every field the API's schema refuses, by the form's field; in the page's language, as the API would refuse it. */
export function schemaErrors(schema: TSchema, body: unknown, language: Language): Map<string, string> {
  const errors = new Map<string, string>();
  for (const error of Value.Errors(schema, body)) {
    const param = error.instancePath.split('/')[1] ?? '';
    const field = FIELD_OF_PARAM[param] ?? param;
    if (errors.has(field)) continue;
    // An empty field the API needs is said in the person's words; the rest as the API's schema says it.
    const refusal = invalidParam(param, error.message);
    const said = refusalText(language, refusal, param) ?? (language === 'en' ? error.message : 'refused');
    errors.set(field, error.keyword === 'minLength' ? 'required' : said);
  }
  return errors;
}

/**
 * A refusal of the API as the form's field errors, in the page's language; `undefined` for what the form cannot fix
 * (not allowed, missing).
 */
export function refusalErrors(error: unknown, language: Language): Map<string, string> | undefined {
  const refused = classifyError(error);
  if (refused.status !== 400 && refused.status !== 409 && refused.status !== 422) return undefined;
  const params = (refused as { data?: { params?: Record<string, string> } }).data?.params ?? {};
  const errors = new Map<string, string>();
  // The API's reason, unless it gives none beyond "invalid" (an id of nothing).
  for (const [param, reason] of Object.entries(params)) {
    const said = refusalText(language, refused, param) ?? (reason === GENERIC_REASON ? 'invalid' : language === 'en' ? reason : 'refused');
    errors.set(FIELD_OF_PARAM[param] ?? param, said);
  }
  if (errors.size === 0) errors.set('', refusalText(language, refused) ?? (language === 'en' ? refused.message : 'refused'));
  return errors;
}
