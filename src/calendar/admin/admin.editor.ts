import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PlatformErrors } from '../../platform/errors.ts';
import { classifyError } from '../../platform/http/classify-error.ts';
import { versionTag } from '../../platform/http/entity-tags.ts';
import { escapeXml } from '../../platform/xml/xml.ts';
import { can } from '../calendar.capabilities.ts';
import { findVersion } from '../changes/changes.repository.ts';
import { requestContext, type RequestContext } from '../common/context.ts';
import { CreateEventBodySchema, UpdateEventBodySchema, type EventResponse } from '../events/events.schemas.ts';
import { canEdit } from '../posts/posts.access.ts';
import type { AdminContext } from './admin.context.ts';
import {
  apiBodyOf,
  apiDate,
  choicesOf,
  EditorParams,
  EditorQuery,
  refusalErrors,
  repeatOf,
  schemaErrors,
  storedValues,
  TEXTS,
  timeZones,
  valuesOfBody,
  newValues,
  PREVIEW_FIELDS,
  type Choices,
  type EditorBody,
  type FormValues,
  type Opened,
} from './admin.editor.form.ts';
import { EDITOR_DICTIONARIES } from './admin.editor.i18n.ts';
import { ENDS, previewDates, recurrenceLinesOf, REPEATS, WEEKDAYS } from './admin.recurrence.ts';
import { scriptCsp } from './admin.script.ts';
import { ADMIN_CSP } from './admin.views.ts';

const ORGANIZER_ROWS = 3;
const STATUSES = ['draft', 'pending', 'publish', 'private'] as const;
type Params = { Params: Static<typeof EditorParams> };

/** A page of the form: values, what is wrong with them (by field), and what was being edited. */
interface FormState {
  readonly values: FormValues;
  readonly errors?: ReadonlyMap<string, string>;
  readonly event?: EventResponse;
  readonly version?: number;
  readonly conflict?: readonly string[];
  readonly saved?: boolean;
  /** The next dates of the Repeats builder's series, or why it has none. */
  readonly preview?: { readonly dates: readonly string[] } | { readonly error: string };
}

const isConflict = (error: unknown) => classifyError(error).status === 412;

function render(context: AdminContext, request: FastifyRequest, reply: FastifyReply, choices: Choices, state: FormState, status = 200) {
  const page = context.page(request);
  const e = EDITOR_DICTIONARIES[page.language];
  const user = page.user;
  const event = state.event;
  const title = event === undefined ? e.newEvent : e.editEvent;
  const errors = [...(state.errors ?? new Map<string, string>())].map(([field, message]) => ({
    field,
    label: e.fields[field] ?? field,
    message: e.problems[message] ?? message,
  }));
  const to = (target: string) => `${page.basePath}${target}`;
  const html = context.views.render(page, title, 'event-form', {
    e,
    script: context.views.script.url(page.basePath),
    // Where the script asks for names and dates, and its words (none of them needed without it).
    assist: {
      choices: to('/admin/choices'),
      preview: to('/admin/events/preview-dates'),
      previewFields: PREVIEW_FIELDS.join(' '),
      texts: JSON.stringify(e.script),
    },
    // The template builds its repeated fields as text: what it puts in them is escaped as XML (valid HTML too).
    escape: escapeXml,
    heading: title,
    action: event === undefined ? '/admin/events/new' : `/admin/events/${event.id}/edit`,
    event,
    version: state.version,
    v: state.values.text,
    byday: state.values.byday,
    organizers: [...state.values.organizers, ...Array<string>(ORGANIZER_ROWS).fill('')].slice(
      0,
      Math.max(ORGANIZER_ROWS, state.values.organizers.length + 1),
    ),
    checked: new Set(state.values.categories),
    errors,
    errorOf: (field: string) => errors.find((error) => error.field === field),
    conflict: state.conflict,
    saved: state.saved === true,
    preview: state.preview,
    choices,
    zones: timeZones(),
    repeats: REPEATS,
    weekdays: WEEKDAYS,
    ends: ENDS,
    statuses: STATUSES,
    mayPublish: user !== null && can(user.role, 'publish'),
    mayUpload: user !== null && can(user.role, 'upload_files'),
    occurrence: event?.recurring_event_id !== undefined,
  });
  void reply.header('content-security-policy', scriptCsp(ADMIN_CSP));
  return context.views.send(reply, html, status);
}

/** What "Preview dates" shows: the builder's next dates from the typed start, or what to fix first. */
export function previewOf(values: FormValues, caller: RequestContext): Omit<FormState, 'values'> {
  const start = apiDate(values.text.start ?? '');
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(start)) return { errors: new Map([['start', 'start']]) };
  const built = recurrenceLinesOf(repeatOf(values), start.slice(0, 10));
  if ('field' in built) return { errors: new Map([[built.field, built.problem]]) };
  if (built.lines.length === 0) return { preview: { dates: [] } };
  const allDay = values.text.all_day === '1';
  const zone = values.text.timezone || caller.site.timezone;
  return { preview: previewDates(built.lines, { local: allDay ? `${start.slice(0, 10)} 00:00:00` : `${start}:00`, zone, allDay }) };
}

/** The labels of the fields whose saved value differs from the one the person sent. */
async function changedFields(context: AdminContext, current: Opened, sent: FormValues): Promise<string[]> {
  const saved = await storedValues(context, current);
  const names = ['title', 'description', 'excerpt', 'title_it', 'description_it', 'excerpt_it', 'start', 'end', 'timezone', 'venue'];
  const more = ['tags', 'cost', 'website', 'status', 'image', 'all_day', 'featured'];
  const differs = [...names, ...more].filter((name) => (saved.text[name] ?? '') !== (sent.text[name] ?? ''));
  if (saved.organizers.join('\n') !== sent.organizers.filter((name) => name.trim() !== '').join('\n')) differs.push('organizers');
  if ([...saved.categories].sort().join() !== [...sent.categories].sort().join()) differs.push('categories');
  return differs;
}

/** The event to edit, if the user may edit it (as the API's update checks); its version read before it. */
export async function editable(context: AdminContext, id: number, caller: RequestContext): Promise<Opened> {
  const version = await findVersion(context.services.deps.store.db, 'event', id);
  const english = { ...caller, language: 'en' as const };
  const { row, event } = await context.services.events.getEventWithRow({ id }, {}, english);
  if (!canEdit(caller.user, row)) throw PlatformErrors.forbidden(caller.user !== null);
  return { event, version, costs: typedCosts(row.cost) };
}

/** The costs as stored (a JSON list of what was typed), for the form's one field. */
function typedCosts(stored: string | null): string {
  if (stored === null) return '';
  try {
    const costs: unknown = JSON.parse(stored);
    return Array.isArray(costs) ? costs.map(String).join(', ') : stored;
  } catch {
    return stored;
  }
}

export function newEventForm(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    return render(context, request, reply, await choicesOf(context, caller), { values: newValues(caller) });
  };
}

export function editEventForm(context: AdminContext) {
  return async (request: FastifyRequest<Params & { Querystring: Static<typeof EditorQuery> }>, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    const opened = await editable(context, request.params.id, caller);
    const { event, version } = opened;
    const [choices, values] = await Promise.all([choicesOf(context, caller), storedValues(context, opened)]);
    return render(context, request, reply, choices, { values, event, version, saved: request.query.saved !== undefined });
  };
}

/** The Italian texts, written after the event as the API writes a translation (`translation_language=it`). */
async function writeItalian(context: AdminContext, id: number, values: FormValues, caller: RequestContext, before?: FormValues) {
  const body: Record<string, string> = {};
  for (const field of TEXTS) {
    const value = values.text[`${field}_it`] ?? '';
    if (value === (before?.text[`${field}_it`] ?? '') || (field === 'title' && value === '')) continue;
    body[field] = value;
  }
  if (Object.keys(body).length === 0) return;
  await context.services.events.updateEvent({ id }, body, { ...caller, language: 'it', precondition: undefined });
}

/** Creates (no id) or saves the event through the API's schema and service, or shows the form again with what to fix. */
export function saveEvent(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: EditorBody; Params: Partial<Static<typeof EditorParams>> }>, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    const id = request.params.id;
    let values = valuesOfBody(request.body);
    const opened = id === undefined ? undefined : await editable(context, id, caller);
    let choices = await choicesOf(context, caller);
    const form = (state: Omit<FormState, 'values'>, status: number) =>
      render(context, request, reply, choices, { values, event: opened?.event, version: sentVersion, ...state }, status);
    const sentVersion = request.body.version === undefined || request.body.version === '' ? undefined : Number(request.body.version);

    if (request.body.preview !== undefined) return form(previewOf(values, caller), 200);
    const built = apiBodyOf(values, choices, opened?.event);
    if ('errors' in built) return form({ errors: built.errors }, 422);
    const schema = id === undefined ? CreateEventBodySchema : UpdateEventBodySchema;
    const language = context.page(request).language;
    const invalid = schemaErrors(schema, built.body, language);
    if (invalid.size > 0) return form({ errors: invalid }, 422);

    const english = { ...caller, language: 'en' as const };
    const file = request.body.image_file;
    if (file !== undefined && file.bytes.length > 0) {
      const user = caller.user;
      if (user === null || !can(user.role, 'upload_files')) throw PlatformErrors.forbidden(user !== null);
      try {
        const image = await context.services.media.upload(user, { bytes: file.bytes, filename: file.filename, fields: {} });
        built.body.image = String(image.id);
        // Kept in the library and chosen in the form, whatever happens to the event next.
        values = { ...values, text: { ...values.text, image: String(image.id) } };
        choices = { ...choices, images: [{ id: image.id, name: image.title.rendered || image.slug }, ...choices.images] };
      } catch (error) {
        const errors = refusalErrors(error, language);
        if (errors === undefined) throw error;
        return form({ errors: new Map([['image_file', [...errors.values()].join(' ')]]) }, 422);
      }
    }
    let savedId: number;
    try {
      if (id === undefined || opened === undefined) {
        savedId = (await context.services.events.createEvent(built.body as Static<typeof CreateEventBodySchema>, english)).item.id;
      } else {
        const all = request.body.scope === 'all' && opened.event.recurring_event_id !== undefined;
        const target = all ? (opened.event.recurring_event_id as number) : id;
        const body = { ...built.body } as Static<typeof UpdateEventBodySchema>;
        // The dates of one occurrence are not every occurrence's: the series keeps its own.
        if (all) for (const name of ['start_date', 'end_date', 'scope'] as const) delete body[name];
        // The version the form was opened at must still be the event's: the API's If-Match.
        const precondition = all || sentVersion === undefined ? undefined : { ifMatch: versionTag(sentVersion), required: false };
        savedId = (await context.services.events.updateEvent({ id: target }, body, { ...english, precondition })).item.id;
      }
      await writeItalian(context, savedId, values, caller, opened === undefined ? undefined : await storedValues(context, opened));
    } catch (error) {
      if (opened !== undefined && isConflict(error)) {
        const current = await editable(context, opened.event.id, caller);
        const conflict = await changedFields(context, current, values);
        return form(
          {
            conflict: conflict.map((field) => EDITOR_DICTIONARIES[context.page(request).language].fields[field] ?? field),
            version: current.version,
          },
          409,
        );
      }
      const errors = refusalErrors(error, language);
      if (errors === undefined) throw error;
      return form({ errors }, 422);
    }
    return reply.redirect(`${context.config.basePath}/admin/events/${savedId}/edit?saved=1`, 303);
  };
}
