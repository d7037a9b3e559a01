import Type, { type Static, type TObject } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { classifyError } from '../../platform/http/classify-error.ts';
import { can } from '../calendar.capabilities.ts';
import { requestContext } from '../common/context.ts';
import { plainText } from '../pages/pages.present.ts';
import type { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import type { Representation } from '../linked-posts/linked-posts.present.ts';
import { CreateOrganizerBodySchema, UpdateOrganizerBodySchema } from '../organizers/organizers.schemas.ts';
import { CreateVenueBodySchema, UpdateVenueBodySchema } from '../venues/venues.schemas.ts';
import type { AdminContext } from './admin.context.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';

const PER_PAGE = 20;

/** Venues and organizers in the editor: one screen each, over the API's service and body schemas of that kind. */
interface PlaceScreen {
  readonly plural: 'venues' | 'organizers';
  /** The API's name of the name field (`venue`, `organizer`). */
  readonly nameField: string;
  readonly checkboxes: readonly string[];
  readonly service: (context: AdminContext) => LinkedPostsService;
  readonly createBody: TObject;
  readonly updateBody: TObject;
  readonly fields: (t: AdminDictionary) => forms.Field[];
  readonly headings: (t: AdminDictionary) => { readonly add: string; readonly edit: string };
  /** The list's columns after the name, and each item's cells for them. */
  readonly columns: (t: AdminDictionary) => string[];
  readonly cells: (item: Representation) => string[];
}

/** A text field of a representation as typed: names and addresses are stored entity-escaped (`&amp;`). */
const text = (item: Representation, name: string) => plainText(item[name]);

const VENUES: PlaceScreen = {
  plural: 'venues',
  nameField: 'venue',
  checkboxes: ['show_map'],
  service: (context) => context.services.venues,
  createBody: CreateVenueBodySchema,
  updateBody: UpdateVenueBodySchema,
  fields: ({ place }) => [
    { name: 'venue', label: place.name, required: true },
    { name: 'address', label: place.address, autocomplete: 'off' },
    { name: 'city', label: place.city },
    { name: 'stateprovince', label: place.stateprovince },
    { name: 'zip', label: place.zip },
    { name: 'country', label: place.country },
    { name: 'phone', label: place.phone, type: 'tel' },
    { name: 'website', label: place.website, type: 'url' },
    { name: 'description', label: place.description, type: 'textarea' },
    { name: 'show_map', label: place.show_map, type: 'checkbox' },
  ],
  headings: ({ place }) => ({ add: place.addVenue, edit: place.editVenue }),
  columns: (t) => [t.place.city, t.place.country, t.form.status],
  cells: (item) => [text(item, 'city'), text(item, 'country')],
};

const ORGANIZERS: PlaceScreen = {
  plural: 'organizers',
  nameField: 'organizer',
  checkboxes: [],
  service: (context) => context.services.organizers,
  createBody: CreateOrganizerBodySchema,
  updateBody: UpdateOrganizerBodySchema,
  fields: ({ place }) => [
    { name: 'organizer', label: place.name, required: true },
    { name: 'phone', label: place.phone, type: 'tel' },
    { name: 'website', label: place.website, type: 'url' },
    { name: 'email', label: place.email, type: 'email' },
    { name: 'description', label: place.description, type: 'textarea' },
  ],
  headings: ({ place }) => ({ add: place.addOrganizer, edit: place.editOrganizer }),
  columns: (t) => [t.place.email, t.place.phone, t.form.status],
  cells: (item) => [text(item, 'email'), text(item, 'phone')],
};

const ListQuery = Type.Object({
  ...forms.FormQuery.properties,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Literal('trash')),
});

type IdRequest = FastifyRequest<{ Params: Static<typeof forms.IdParams> }>;

/** A representation as the form's values. */
function valuesOf(screen: PlaceScreen, fields: readonly forms.Field[], item: Representation): forms.Values {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = field.name === screen.nameField ? item[screen.nameField] : item[field.name];
    // The description is HTML, edited as such; the other texts are shown as typed.
    values[field.name] =
      typeof value === 'boolean' ? (value ? '1' : '0') : field.type === 'textarea' ? String(value ?? '') : plainText(value);
  }
  return values;
}

/** The editor's venues and organizers: list with search and a trash view, add, edit, trash and delete for good. */
export async function placeRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  for (const screen of [VENUES, ORGANIZERS]) {
    const base = `/admin/${screen.plural}`;
    const typed = forms.keepTyped({ checkboxes: screen.checkboxes });
    const body = (schema: TObject) => ({ hide: true, body: schema });
    app.get(base, { config: { access: 'edit' }, schema: { hide: true, querystring: ListQuery }, handler: listPlaces(context, screen) });
    app.get(`${base}/new`, {
      config: { access: 'edit' },
      schema: { hide: true, querystring: forms.FormQuery },
      handler: newPlace(context, screen),
    });
    app.post(`${base}/new`, {
      config: { access: 'edit' },
      attachValidation: true,
      preValidation: typed,
      schema: body(screen.createBody),
      handler: createPlace(context, screen),
    });
    const edit = `${base}/:id/edit`;
    app.get(edit, {
      config: { access: 'edit' },
      schema: { hide: true, params: forms.IdParams, querystring: forms.FormQuery },
      handler: editPlace(context, screen),
    });
    app.post(edit, {
      config: { access: 'edit' },
      attachValidation: true,
      preValidation: typed,
      schema: { ...body(screen.updateBody), params: forms.IdParams },
      handler: updatePlace(context, screen),
    });
    app.post(`${base}/:id/delete`, {
      config: { access: 'delete' },
      schema: { hide: true, params: forms.IdParams, body: forms.CsrfOnly },
      handler: deletePlace(context, screen),
    });
  }
}

function listPlaces(context: AdminContext, screen: PlaceScreen) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof ListQuery> }>, reply: FastifyReply) => {
    const { query } = request;
    const page = query.page ?? 1;
    const ctx = requestContext(request, context.services.deps);
    const status = query.status ?? 'any';
    const result = await screen.service(context).list({ page, per_page: PER_PAGE, status, search: query.search }, ctx, '');
    const admin = context.page(request);
    const { t } = admin;
    const base = `${context.config.basePath}/admin/${screen.plural}`;
    const pageOf = (target: number) => {
      const { lang: _lang, saved: _saved, deleted: _deleted, ...kept } = query;
      return `${base}/?${new URLSearchParams({ ...kept, page: String(target) } as Record<string, string>)}`;
    };
    // A trashed item is read by nobody, so it is not edited: it goes for good from the trash, by those who may.
    const inTrash = query.status === 'trash';
    const forGood = inTrash && can(admin.user?.role ?? null, 'delete_others');
    return forms.sendList(context, request, reply, {
      heading: t.nav[screen.plural],
      add: { href: `${base}/new`, label: screen.headings(t).add },
      search: { value: query.search ?? '', action: `${base}/`, status: query.status },
      views: [
        { href: `${base}/`, label: t.form.all, current: !inTrash },
        { href: `${base}/?status=trash`, label: t.form.trashView, current: inTrash },
      ],
      columns: [t.place.name, ...screen.columns(t)],
      rows: result.items.map((item) => ({
        ...(inTrash || !forms.mayEdit(admin.user, item) ? {} : { href: `${base}/${String(item.id)}/edit` }),
        ...(forGood ? { button: { action: `${base}/${String(item.id)}/delete`, label: t.form.deleteForGood } } : {}),
        cells: [text(item, screen.nameField), ...screen.cells(item), t.statuses[text(item, 'status')] ?? text(item, 'status')],
      })),
      total: result.total,
      notice: forms.noticeOf(admin, query),
      previous: page > 1 ? pageOf(page - 1) : undefined,
      next: page < result.totalPages ? pageOf(page + 1) : undefined,
      page,
      pages: result.totalPages,
    });
  };
}

interface PlaceForm {
  readonly id?: number;
  readonly values: forms.Values;
  readonly errors?: forms.FieldErrors;
  readonly notice?: string;
}

function sendPlaceForm(context: AdminContext, screen: PlaceScreen, request: FastifyRequest, reply: FastifyReply, form: PlaceForm) {
  const { t } = context.page(request);
  const base = `${context.config.basePath}/admin/${screen.plural}`;
  const headings = screen.headings(t);
  const buttons = form.id === undefined ? [] : [{ action: `${base}/${form.id}/delete`, label: t.form.trash }];
  return forms.sendForm(context, request, reply, {
    heading: form.id === undefined ? headings.add : headings.edit,
    action: form.id === undefined ? `${base}/new` : `${base}/${form.id}/edit`,
    fields: screen.fields(t),
    values: form.values,
    errors: form.errors,
    submit: t.form.save,
    notice: form.notice,
    buttons,
    back: { href: `${base}/`, label: t.form.back },
  });
}

function newPlace(context: AdminContext, screen: PlaceScreen) {
  return async (request: FastifyRequest, reply: FastifyReply) =>
    sendPlaceForm(context, screen, request, reply, { values: screen.plural === 'venues' ? { show_map: '1' } : {} });
}

function createPlace(context: AdminContext, screen: PlaceScreen) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const page = context.page(request);
    const ctx = requestContext(request, context.services.deps);
    const errors =
      forms.validationErrorsOf(request, page) ??
      (await forms.attempt(page, () => screen.service(context).create(forms.inputOf(request.body), ctx)));
    if (errors !== undefined) return sendPlaceForm(context, screen, request, reply, { values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/${screen.plural}/?saved=1`, 303);
  };
}

function editPlace(context: AdminContext, screen: PlaceScreen) {
  return async (request: forms.ItemPageRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const ctx = requestContext(request, context.services.deps);
    const { item } = await screen.service(context).get({ id }, { context: 'edit' }, ctx);
    const page = context.page(request);
    const values = valuesOf(screen, screen.fields(page.t), item);
    return sendPlaceForm(context, screen, request, reply, { id, values, notice: forms.noticeOf(page, request.query) });
  };
}

function updatePlace(context: AdminContext, screen: PlaceScreen) {
  return async (request: IdRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const page = context.page(request);
    const ctx = requestContext(request, context.services.deps);
    const errors =
      forms.validationErrorsOf(request, page) ??
      (await forms.attempt(page, () => screen.service(context).update({ id }, forms.inputOf(request.body), ctx)));
    if (errors !== undefined) return sendPlaceForm(context, screen, request, reply, { id, values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/${screen.plural}/${id}/edit?saved=1`, 303);
  };
}

function deletePlace(context: AdminContext, screen: PlaceScreen) {
  return async (request: IdRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const ctx = requestContext(request, context.services.deps);
    const service = screen.service(context);
    try {
      await service.delete({ id }, false, ctx);
    } catch (error) {
      // Already in the trash (the API's 410): from there it goes for good, if the API lets the user.
      if (classifyError(error).status !== 410) throw error;
      await service.delete({ id }, true, ctx);
    }
    return reply.redirect(`${context.config.basePath}/admin/${screen.plural}/?deleted=1`, 303);
  };
}
