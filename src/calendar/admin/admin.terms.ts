import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext, type RequestContext } from '../common/context.ts';
import { plainText } from '../pages/pages.present.ts';
import { createBodySchema, updateBodySchema, type Term, type TermWriteBody } from '../terms/terms.schemas.ts';
import type { TermsService } from '../terms/terms.service.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../terms/terms.taxonomy.ts';
import type { AdminContext } from './admin.context.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';
import type { AdminPage } from './admin.views.ts';

/** The most terms a screen lists, and offers as parents (the API's pages, read one after the other). */
const PER_PAGE = 50;
const MAX_PAGES = 20;
/** The Italian version of a term's texts, written as the API writes with `translation_language=it`. */
const ITALIAN = { name_it: 'name', description_it: 'description' } as const;

interface TermScreen {
  readonly info: TaxonomyInfo;
  readonly service: (context: AdminContext) => TermsService;
  readonly headings: (t: AdminDictionary) => { readonly add: string; readonly edit: string };
}

const SCREENS: readonly TermScreen[] = [
  {
    info: CATEGORIES,
    service: (context) => context.services.categories,
    headings: ({ term }) => ({ add: term.addCategory, edit: term.editCategory }),
  },
  { info: TAGS, service: (context) => context.services.tags, headings: ({ term }) => ({ add: term.addTag, edit: term.editTag }) },
];

const ListQuery = Type.Object({ ...forms.FormQuery.properties, search: Type.Optional(Type.String({ maxLength: 200 })) });
type IdRequest = FastifyRequest<{ Params: Static<typeof forms.IdParams> }>;

/** The editor's categories and tags: list with counts, add, edit (with the Italian name and description), delete. */
export async function termRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  for (const screen of SCREENS) {
    const base = `/admin/${screen.info.collection}`;
    const config = { access: screen.info.manageCapability };
    const typed = forms.keepTyped({ optional: ['slug', 'description', 'parent', 'name_it', 'description_it'] });
    app.get(base, { config, schema: { hide: true, querystring: ListQuery }, handler: listTerms(context, screen) });
    app.get(`${base}/new`, { config, schema: { hide: true, querystring: forms.FormQuery }, handler: newTerm(context, screen) });
    app.post(`${base}/new`, {
      config,
      attachValidation: true,
      preValidation: typed,
      schema: { hide: true, body: createBodySchema(screen.info) },
      handler: createTerm(context, screen),
    });
    const edit = `${base}/:id/edit`;
    app.get(edit, {
      config,
      schema: { hide: true, params: forms.IdParams, querystring: forms.FormQuery },
      handler: editTerm(context, screen),
    });
    app.post(edit, {
      config,
      attachValidation: true,
      preValidation: typed,
      schema: { hide: true, params: forms.IdParams, body: updateBodySchema(screen.info) },
      handler: updateTerm(context, screen),
    });
    app.post(`${base}/:id/delete`, {
      config,
      schema: { hide: true, params: forms.IdParams, body: forms.CsrfOnly },
      handler: deleteTerm(context, screen),
    });
  }
}

/** Every term of the taxonomy (up to the screen's bound), by name, each in the request's language. */
async function allTerms(service: TermsService, ctx: RequestContext, search?: string): Promise<Term[]> {
  const terms: Term[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { list, totalPages } = await service.list(
      { page, per_page: PER_PAGE, hide_empty: 'false', orderby: 'name', search, parent: undefined },
      ctx,
    );
    terms.push(...((list as unknown as Record<string, Term[]>)[service.info.collection] ?? []));
    if (page >= totalPages) break;
  }
  return terms;
}

/** Terms in tree order, each child after its parent and named with a dash per level (the parents' select, the list). */
function treeOf(terms: readonly Term[]): { term: Term; label: string }[] {
  const children = new Map<number, Term[]>();
  for (const term of terms) children.set(term.parent ?? 0, [...(children.get(term.parent ?? 0) ?? []), term]);
  const known = new Set(terms.map((term) => term.id));
  const out: { term: Term; label: string }[] = [];
  const walk = (parent: number, depth: number) => {
    for (const term of children.get(parent) ?? []) {
      out.push({ term, label: `${'— '.repeat(depth)}${plainText(term.name)}` });
      walk(term.id, depth + 1);
    }
  };
  walk(0, 0);
  // A parent past the screen's bound: its children are listed at the top level.
  for (const [parent, orphans] of children)
    if (parent !== 0 && !known.has(parent)) for (const term of orphans) out.push({ term, label: plainText(term.name) });
  return out;
}

function listTerms(context: AdminContext, screen: TermScreen) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof ListQuery> }>, reply: FastifyReply) => {
    const ctx = requestContext(request, context.services.deps);
    const terms = await allTerms(screen.service(context), ctx, request.query.search);
    const page = context.page(request);
    const { t } = page;
    const base = `${context.config.basePath}/admin/${screen.info.collection}`;
    return forms.sendList(context, request, reply, {
      heading: t.nav[screen.info.collection],
      add: { href: `${base}/new`, label: screen.headings(t).add },
      search: { value: request.query.search ?? '', action: `${base}/` },
      columns: [t.term.name, t.term.slug, t.term.count],
      rows: treeOf(terms).map(({ term, label }) => ({ href: `${base}/${term.id}/edit`, cells: [label, term.slug, String(term.count)] })),
      total: terms.length,
      notice: forms.noticeOf(page, request.query),
    });
  };
}

interface TermForm {
  readonly id?: number;
  readonly values: forms.Values;
  readonly errors?: forms.FieldErrors;
  readonly notice?: string;
}

async function sendTermForm(context: AdminContext, screen: TermScreen, request: FastifyRequest, reply: FastifyReply, form: TermForm) {
  const { t } = context.page(request);
  const base = `${context.config.basePath}/admin/${screen.info.collection}`;
  const fields: forms.Field[] = [
    { name: 'name', label: t.term.name, required: true },
    { name: 'slug', label: t.term.slug },
  ];
  if (screen.info.hierarchical) {
    const ctx = requestContext(request, context.services.deps);
    const below = (term: Term) => form.id !== undefined && term.id === form.id;
    const options = treeOf(await allTerms(screen.service(context), ctx))
      .filter(({ term }) => !below(term))
      .map(({ term, label }) => ({ value: String(term.id), label }));
    // A new category's "none" sends no parent; an existing one's sends 0, the update's "back to the top level".
    const none = { value: form.id === undefined ? '' : '0', label: t.form.none };
    fields.push({ name: 'parent', label: t.term.parent, type: 'select', options: [none, ...options] });
  }
  fields.push(
    { name: 'description', label: t.term.description, type: 'textarea' },
    { name: 'name_it', label: t.term.nameIt, lang: 'it' },
    { name: 'description_it', label: t.term.descriptionIt, type: 'textarea', lang: 'it' },
  );
  return forms.sendForm(context, request, reply, {
    heading: form.id === undefined ? screen.headings(t).add : screen.headings(t).edit,
    action: form.id === undefined ? `${base}/new` : `${base}/${form.id}/edit`,
    fields,
    values: form.values,
    errors: form.errors,
    notice: form.notice,
    submit: t.form.save,
    buttons: form.id === undefined ? [] : [{ action: `${base}/${form.id}/delete`, label: t.form.delete }],
    back: { href: `${base}/`, label: t.form.back },
  });
}

/** The English (default) write's arguments and the Italian one's, from one form. */
function writesOf(body: unknown): { main: Record<string, unknown>; italian: Record<string, unknown> } {
  const main = forms.inputOf(body);
  const italian: Record<string, unknown> = {};
  for (const [field, name] of Object.entries(ITALIAN)) {
    if (typeof main[field] === 'string') italian[name] = main[field];
    delete main[field];
  }
  return { main, italian };
}

/** The Italian write: its refusals name the Italian fields. */
async function writeItalian(
  context: AdminContext,
  screen: TermScreen,
  request: FastifyRequest,
  id: number,
  italian: Record<string, unknown>,
) {
  if (Object.keys(italian).length === 0) return undefined;
  const page = context.page(request);
  const ctx: RequestContext = { ...requestContext(request, context.services.deps), language: 'it' };
  return italianNames(await forms.attempt(page, () => screen.service(context).update(id, italian as TermWriteBody, ctx)));
}

/** Refusals of the Italian write, by the form's names of its fields. */
function italianNames(errors: forms.FieldErrors | undefined): forms.FieldErrors | undefined {
  if (errors === undefined) return undefined;
  const renamed = Object.fromEntries(Object.entries(ITALIAN).map(([field, name]) => [name, field]));
  return Object.fromEntries(Object.entries(errors).map(([name, message]) => [renamed[name] ?? name, message]));
}

/** The Italian fields checked by the API's body schema, as the route checks the English ones: before anything is written. */
function italianChecked(screen: TermScreen, page: AdminPage, italian: Record<string, unknown>): forms.FieldErrors | undefined {
  const names = new Set(
    [...Value.Errors(updateBodySchema(screen.info), italian)].map((error) => error.instancePath.split('/')[1] ?? 'name'),
  );
  return names.size === 0 ? undefined : italianNames(Object.fromEntries([...names].map((name) => [name, page.t.form.invalid])));
}

function newTerm(context: AdminContext, screen: TermScreen) {
  return async (request: FastifyRequest, reply: FastifyReply) => sendTermForm(context, screen, request, reply, { values: {} });
}

function createTerm(context: AdminContext, screen: TermScreen) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const page = context.page(request);
    const ctx: RequestContext = { ...requestContext(request, context.services.deps), language: 'en' };
    const { main, italian } = writesOf(request.body);
    const service = screen.service(context);
    let id: number | undefined;
    let errors =
      forms.validationErrorsOf(request, page) ??
      italianChecked(screen, page, italian) ??
      (await forms.attempt(page, async () => {
        id = (await service.create(main as TermWriteBody & { name: string }, ctx)).item.id;
      }));
    if (errors === undefined && id !== undefined) {
      errors = await writeItalian(context, screen, request, id, italian);
      // A refused Italian version leaves nothing behind: the form comes back as it was sent.
      if (errors !== undefined) await service.delete(id, ctx);
    }
    if (errors !== undefined) return sendTermForm(context, screen, request, reply, { values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/${screen.info.collection}/?saved=1`, 303);
  };
}

function editTerm(context: AdminContext, screen: TermScreen) {
  return async (request: forms.ItemPageRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const ctx = requestContext(request, context.services.deps);
    const service = screen.service(context);
    const { item } = await service.get(id, { ...ctx, language: 'en' });
    const { item: italian } = await service.get(id, { ...ctx, language: 'it' });
    // A text read in Italian that is the English one is no translation (reads fall back to English): left empty.
    const own = (text: string, english: string) => (text === english ? '' : text);
    const values = {
      name: plainText(item.name),
      slug: item.slug,
      parent: String(item.parent || 0),
      description: item.description,
      name_it: plainText(own(italian.name, item.name)),
      description_it: own(italian.description, item.description),
    };
    const notice = forms.noticeOf(context.page(request), request.query);
    return sendTermForm(context, screen, request, reply, { id, values, notice });
  };
}

function updateTerm(context: AdminContext, screen: TermScreen) {
  return async (request: IdRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const page = context.page(request);
    const ctx: RequestContext = { ...requestContext(request, context.services.deps), language: 'en' };
    const { main, italian } = writesOf(request.body);
    // An unknown term is the page's refusal, not a form's.
    await screen.service(context).get(id, ctx);
    const errors =
      forms.validationErrorsOf(request, page) ??
      italianChecked(screen, page, italian) ??
      (await forms.attempt(page, () => screen.service(context).update(id, main as TermWriteBody, ctx))) ??
      (await writeItalian(context, screen, request, id, italian));
    if (errors !== undefined) {
      return sendTermForm(context, screen, request, reply, { id, values: forms.typedValues(request), errors });
    }
    return reply.redirect(`${context.config.basePath}/admin/${screen.info.collection}/${id}/edit?saved=1`, 303);
  };
}

function deleteTerm(context: AdminContext, screen: TermScreen) {
  return async (request: IdRequest, reply: FastifyReply) => {
    await screen.service(context).delete(request.params.id, requestContext(request, context.services.deps));
    return reply.redirect(`${context.config.basePath}/admin/${screen.info.collection}/?deleted=1`, 303);
  };
}
