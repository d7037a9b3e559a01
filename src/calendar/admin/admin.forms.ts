import Type, { type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Access } from '../../platform/auth/access.plugin.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { AppError } from '../../platform/errors.ts';
import { classifyError, ValidationError } from '../../platform/http/classify-error.ts';
import { canDelete, canEdit, type PostAccessFacts } from '../posts/posts.access.ts';
import type { AdminContext } from './admin.context.ts';
import { GENERIC_REASON, refusalText } from './admin.refusals.i18n.ts';
import type { AdminPage } from './admin.views.ts';

/** How a field is typed in: the input it is drawn as. */
/** `checkboxes`: a group of boxes of one name, whose value is the ticked ones' values, comma-separated. */
export type FieldType = 'text' | 'textarea' | 'url' | 'email' | 'tel' | 'password' | 'file' | 'checkbox' | 'checkboxes' | 'select';

/** One field of an editor form: its name is the API's, its label a word of the page's dictionary. */
export interface Field {
  readonly name: string;
  readonly label: string;
  readonly type?: FieldType;
  readonly options?: readonly { readonly value: string; readonly label: string }[];
  readonly required?: boolean;
  readonly autocomplete?: string;
  /** The language of what is typed, when it is not the page's. */
  readonly lang?: string;
  readonly hint?: string;
}

/** What was typed, by field name: what a refused form shows again. */
export type Values = Readonly<Record<string, string>>;
/** The message beside each refused field. */
export type FieldErrors = Readonly<Record<string, string>>;

/** A form's query: the list notices a write leaves (`saved`, `deleted`) and the language switch. */
export const FormQuery = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 5 })),
  saved: Type.Optional(Type.String({ maxLength: 1 })),
  deleted: Type.Optional(Type.String({ maxLength: 1 })),
});
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
/** The request of an item's form page: its id and the form's query. */
export type ItemPageRequest = FastifyRequest<{ Params: Static<typeof IdParams>; Querystring: Static<typeof FormQuery> }>;
export const CsrfOnly = Type.Object({ csrf: Type.String({ maxLength: 200 }) });

const typed = new WeakMap<FastifyRequest, Values>();

interface Typing {
  /** Boxes whose absence is a no (`0`): a browser sends nothing for an unticked box. */
  readonly checkboxes?: readonly string[];
  /** Groups of boxes whose absence is an empty list. */
  readonly groups?: readonly string[];
  /** Fields the API takes only with a value: left empty, they are not sent. */
  readonly optional?: readonly string[];
}

/** A route hook, before its body is validated and coerced: keeps what was typed (to show again) and reads what was not sent. */
export function keepTyped({ checkboxes = [], groups = [], optional = [] }: Typing) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    for (const name of checkboxes) body[name] ??= '0';
    for (const name of groups) body[name] ??= [];
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) {
      if (name !== 'csrf' && (typeof value === 'string' || Array.isArray(value))) values[name] = [value].flat().map(String).join(',');
    }
    typed.set(request, values);
    for (const name of optional) if (body[name] === '') delete body[name];
  };
}

/** A form's POST route: its access, how its fields are typed, the API's body schema (refusals reach the handler). */
export function formRoute(access: Access, typing: Typing, body: object, params?: object) {
  const schema = { hide: true, body, ...(params === undefined ? {} : { params }) };
  return { config: { access }, attachValidation: true, preValidation: keepTyped(typing), schema };
}

/** An event, venue or organizer as the API answers it: what its access rules read. */
type WirePost = Readonly<Partial<Record<'author' | 'status' | 'date_utc', unknown>>>;

const factsOf = (post: WirePost): PostAccessFacts => ({
  author_id: Number(post.author),
  status: String(post.status),
  date_utc: String(post.date_utc),
});

/** Whether the user may open a listed post's form: the API's own rule for its writes (an Edit link that answers 403 is none). */
export const mayEdit = (user: AuthUser | null, post: WirePost): boolean => canEdit(user, factsOf(post));

/** Whether a listed post may be ticked for a bulk action: one the user may change or move to the trash. */
export const mayAct = (user: AuthUser | null, post: WirePost): boolean => canEdit(user, factsOf(post)) || canDelete(user, factsOf(post));

/** What the request's form carried, as typed. */
export const typedValues = (request: FastifyRequest): Values => typed.get(request) ?? {};

/** Refusals that name no parameter but are about one field: the field, and what the form says of it. */
const FIELD_OF_REFUSAL: Readonly<Record<string, readonly [string, 'taken' | 'invalid']>> = {
  duplicate_term_slug: ['slug', 'taken'],
  term_exists: ['name', 'taken'],
  duplicate_username: ['username', 'taken'],
  invalid_username: ['username', 'invalid'],
  invalid_password: ['password', 'invalid'],
  unknown_role: ['role', 'invalid'],
};

/**
 * The fields a refusal names, each with the page's words; `undefined` when it names none (a refusal of the whole
 * request — not allowed, missing — is no form error and is answered as one).
 */
export function fieldErrorsOf(error: unknown, page: AdminPage): FieldErrors | undefined {
  const refusal = classifyError(error);
  const said = (name: string, reason?: unknown) =>
    refusalText(page.language, refusal, name) ??
    // An English page shows the API's own reason, when it gives one beyond "invalid".
    (page.language === 'en' && typeof reason === 'string' && reason !== GENERIC_REASON ? reason : page.t.form.invalid);
  if (refusal instanceof ValidationError) {
    const errors: Record<string, string> = {};
    for (const name of Object.keys(refusal.invalid)) errors[name] = said(name);
    for (const name of refusal.missing) errors[name] = page.t.form.required;
    return errors;
  }
  if (refusal instanceof AppError && refusal.status === 400) {
    const params = refusal.data.params;
    if (typeof params === 'object' && params !== null && Object.keys(params).length > 0) {
      return Object.fromEntries(Object.entries(params).map(([name, reason]) => [name, said(name, reason)]));
    }
  }
  const named = FIELD_OF_REFUSAL[refusal.code];
  return named === undefined ? undefined : { [named[0]]: refusalText(page.language, refusal) ?? page.t.form[named[1]] };
}

/** The request's own validation failure (routes validate with `attachValidation`), as field errors: an empty one is missing. */
export function validationErrorsOf(request: FastifyRequest, page: AdminPage): FieldErrors | undefined {
  const errors = request.validationError === undefined ? undefined : fieldErrorsOf(request.validationError, page);
  if (errors === undefined) return undefined;
  const typedNow = typedValues(request);
  return Object.fromEntries(
    Object.entries(errors).map(([name, message]) => [name, typedNow[name] === '' ? page.t.form.required : message]),
  );
}

/** Runs a write; a refusal naming fields is answered as those fields' messages, anything else as it is. */
export async function attempt(page: AdminPage, write: () => Promise<unknown>): Promise<FieldErrors | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    const errors = fieldErrorsOf(error, page);
    if (errors === undefined) throw error;
    return errors;
  }
}

/** The write arguments of a form: what it carried but its token. */
export function inputOf(body: unknown): Record<string, unknown> {
  const { csrf: _csrf, ...input } = body as Record<string, unknown>;
  return input;
}

/** What an item's form page is given besides the item: what was typed, what was refused, what was done. */
export interface EditForm {
  readonly values?: Values;
  readonly errors?: FieldErrors;
  readonly notice?: string;
}

/** A form page: its fields with their values and messages, where it posts, and what else the page offers. */
export interface FormModel {
  readonly heading: string;
  readonly action: string;
  readonly fields: readonly Field[];
  readonly values: Values;
  readonly errors?: FieldErrors;
  readonly submit: string;
  readonly notice?: string;
  /** A form with a file: sent as multipart. */
  readonly multipart?: boolean;
  /** The image the form is about, shown above it. */
  readonly image?: { readonly src: string; readonly alt: string; readonly href?: string };
  /** Other forms of the page, each one button (delete, restore…). */
  readonly buttons?: readonly { readonly action: string; readonly label: string }[];
  /** What the page shows after the form (a list of deliveries, tokens…): the name of a template part and its model. */
  readonly after?: { readonly template: string; readonly model: object };
  readonly back: { readonly href: string; readonly label: string };
}

/** Renders a form; a refused one with status 400 and its messages, every typed value kept. */
export function sendForm(context: AdminContext, request: FastifyRequest, reply: FastifyReply, form: FormModel): FastifyReply {
  const page = context.page(request);
  const status = form.errors === undefined ? 200 : 400;
  const labels = Object.fromEntries(form.fields.map((field) => [field.name, field.label]));
  // A message naming a field the form does not show still names it, in the summary.
  const summary = Object.entries(form.errors ?? {}).map(([name, message]) => ({ name, label: labels[name] ?? name, message }));
  return context.views.send(reply, context.views.render(page, form.heading, 'form', { ...form, summary }), status);
}

/** A list page of the editor: its heading, what it may add, its rows as cells (the first links to the item). */
export interface ListModel {
  readonly heading: string;
  readonly add?: { readonly href: string; readonly label: string };
  readonly search?: { readonly value: string; readonly action: string; readonly status?: string };
  /** Other views of the list (everything, the trash). */
  readonly views?: readonly { readonly href: string; readonly label: string; readonly current: boolean }[];
  readonly columns: readonly string[];
  /** Each row's cells; `button`: a one-button form of the row (delete for good). */
  readonly rows: readonly {
    readonly href?: string;
    readonly cells: readonly string[];
    /** A thumbnail before the first cell's text (decorative: the text names it). */
    readonly image?: { readonly src: string };
    readonly button?: { readonly action: string; readonly label: string };
  }[];
  readonly total: number;
  readonly notice?: string;
  readonly previous?: string;
  readonly next?: string;
  readonly page?: number;
  readonly pages?: number;
}

export function sendList(context: AdminContext, request: FastifyRequest, reply: FastifyReply, list: ListModel): FastifyReply {
  const page = context.page(request);
  return context.views.send(reply, context.views.render(page, list.heading, 'list', list));
}

/** The notice a list shows after a write sent the reader back to it. */
export function noticeOf(page: AdminPage, query: { saved?: string; deleted?: string }): string | undefined {
  return query.saved !== undefined ? page.t.form.saved : query.deleted !== undefined ? page.t.form.deleted : undefined;
}
