import Type, { type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../common/context.ts';
import { plainText } from '../pages/pages.present.ts';
import type { Term } from '../terms/terms.schemas.ts';
import type { AdminContext } from './admin.context.ts';
import { EditorBody, PREVIEW_FIELDS, valuesOfBody } from './admin.editor.form.ts';
import { previewOf } from './admin.editor.ts';
import { EDITOR_DICTIONARIES } from './admin.editor.i18n.ts';

/**
 * What the event editor's script asks as the person types (admin.script.ts): names to pick and the Repeats
 * builder's next dates, as JSON. Both read through the API's services as the signed-in user, as the form does,
 * so a picker offers only what that user may see; a signed-out request is sent to the login form.
 */

const SUGGESTIONS = 10;

export const ChoicesParams = Type.Object({ kind: Type.Union([Type.Literal('venues'), Type.Literal('organizers'), Type.Literal('tags')]) });
export const ChoicesQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
});
export const PreviewQuery = Type.Pick(EditorBody, PREVIEW_FIELDS);

/** The first names matching what was typed: venues, organizers or tags, `{ items: [{ id, name }] }`. */
export function pickerChoices(context: AdminContext) {
  return async (
    request: FastifyRequest<{ Params: Static<typeof ChoicesParams>; Querystring: Static<typeof ChoicesQuery> }>,
    reply: FastifyReply,
  ) => {
    const caller = requestContext(request, context.services.deps);
    const { kind } = request.params;
    const search = request.query.search?.trim() || undefined;
    const { services } = context;
    let items: { id: number; name: string }[];
    if (kind === 'tags') {
      const { list } = await services.tags.list(
        { page: 1, per_page: SUGGESTIONS, hide_empty: false, orderby: 'name', search, parent: undefined },
        caller,
      );
      const terms = (list as unknown as Record<string, Term[]>)[services.tags.info.collection] ?? [];
      items = terms.map((term) => ({ id: term.id, name: plainText(term.name) }));
    } else {
      const key = kind === 'venues' ? 'venue' : 'organizer';
      const { items: found } = await services[kind].list({ page: 1, per_page: SUGGESTIONS, search }, caller, '');
      items = found.map((item) => ({ id: Number(item.id), name: plainText((item as Record<string, unknown>)[key]) }));
    }
    items.sort((one, other) => one.name.localeCompare(other.name, caller.language));
    return reply.type('application/json; charset=utf-8').send({ items });
  };
}

/**
 * "Preview dates" as JSON: the builder's next dates and the words that head them, or (422) what to fix first,
 * worded as the form words it.
 */
export function previewDatesOf(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof PreviewQuery> }>, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    const e = EDITOR_DICTIONARIES[context.page(request).language];
    const { errors, preview } = previewOf(valuesOfBody(request.query), caller);
    void reply.type('application/json; charset=utf-8');
    const [field, problem] = [...(errors ?? new Map<string, string>())][0] ?? [];
    if (field !== undefined)
      return reply.code(422).send({ field, error: `${e.fields[field] ?? field}: ${e.problems[problem ?? ''] ?? problem}` });
    if (preview === undefined || 'error' in preview) return reply.code(422).send({ field: 'rrule', error: preview?.error ?? '' });
    if (preview.dates.length === 0) return reply.send({ message: e.noRepeat, dates: [] });
    return reply.send({ heading: e.nextDates, dates: preview.dates });
  };
}
