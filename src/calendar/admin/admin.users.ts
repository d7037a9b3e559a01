import Type, { type Static } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRole, ROLES } from '../../platform/auth/capabilities.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import type { AdminContext } from './admin.context.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';

const config = { access: 'manage_options' } as const;
const Text = (maxLength: number) => Type.String({ maxLength });
// The service holds the rules (a username's letters, a password's length, the roles); these bound and type the form.
const NewUserBody = Type.Object({ csrf: Text(200), username: Text(200), email: Text(200), role: Text(40), password: Text(1024) });
const EditUserBody = Type.Object({ csrf: Text(200), role: Text(40), password: Type.Optional(Text(1024)) });
const TokenBody = Type.Object({ csrf: Text(200), name: Text(100) });
const TokenParams = Type.Object({ ...forms.IdParams.properties, token: forms.IdParams.properties.id });

type IdRequest = FastifyRequest<{ Params: Static<typeof forms.IdParams> }>;

/** `/admin/users/` (administrators): the users, adding one, changing a role or a password, and API tokens. */
export async function userRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  const form = (body: object, params?: object) => forms.formRoute(config.access, {}, body, params);
  app.get('/admin/users', { config, schema: { hide: true, querystring: forms.FormQuery }, handler: listUsers(context) });
  app.get('/admin/users/new', { config, schema: { hide: true }, handler: newUser(context) });
  app.post('/admin/users/new', { ...form(NewUserBody), handler: addUser(context) });
  app.get('/admin/users/:id/edit', {
    config,
    schema: { hide: true, params: forms.IdParams, querystring: forms.FormQuery },
    handler: editUser(context),
  });
  app.post('/admin/users/:id/edit', { ...form(EditUserBody, forms.IdParams), handler: updateUser(context) });
  app.post('/admin/users/:id/tokens', {
    config,
    schema: { hide: true, params: forms.IdParams, body: TokenBody },
    handler: createToken(context),
  });
  app.post('/admin/users/:id/tokens/:token/revoke', {
    config,
    schema: { hide: true, params: TokenParams, body: forms.CsrfOnly },
    handler: revokeToken(context),
  });
}

const roleOptions = (t: AdminDictionary) => ROLES.map((role) => ({ value: role, label: t.user.roles[role] ?? role }));

function listUsers(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof forms.FormQuery> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const { t } = page;
    const users = await context.users.list();
    const base = `${context.config.basePath}/admin/users`;
    return forms.sendList(context, request, reply, {
      heading: t.nav.users,
      add: { href: `${base}/new`, label: t.user.add },
      columns: [t.username, t.user.displayName, t.place.email, t.user.role],
      rows: users.map((user) => ({
        href: `${base}/${user.id}/edit`,
        cells: [user.username, user.display_name, user.email, t.user.roles[user.role] ?? user.role],
      })),
      total: users.length,
      notice: forms.noticeOf(page, request.query),
    });
  };
}

function newUserFields(t: AdminDictionary): forms.Field[] {
  return [
    { name: 'username', label: t.username, required: true, autocomplete: 'off' },
    { name: 'email', label: t.place.email, type: 'email', autocomplete: 'off' },
    { name: 'role', label: t.user.role, type: 'select', options: roleOptions(t) },
    { name: 'password', label: t.password, type: 'password', required: true, autocomplete: 'new-password', hint: t.user.passwordHint },
  ];
}

function sendNewUser(
  context: AdminContext,
  request: FastifyRequest,
  reply: FastifyReply,
  values: forms.Values,
  errors?: forms.FieldErrors,
) {
  const { t } = context.page(request);
  const base = `${context.config.basePath}/admin/users`;
  return forms.sendForm(context, request, reply, {
    heading: t.user.add,
    action: `${base}/new`,
    fields: newUserFields(t),
    values,
    errors,
    submit: t.form.save,
    back: { href: `${base}/`, label: t.form.back },
  });
}

function newUser(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => sendNewUser(context, request, reply, { role: 'contributor' });
}

function addUser(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: Static<typeof NewUserBody> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const { username, email, role, password } = request.body;
    const errors =
      forms.validationErrorsOf(request, page) ?? (await forms.attempt(page, () => context.users.add({ username, email, role, password })));
    if (errors !== undefined) return sendNewUser(context, request, reply, forms.typedValues(request), errors);
    return reply.redirect(`${context.config.basePath}/admin/users/?saved=1`, 303);
  };
}

/** The user of the path; an unknown one is a 404. */
async function userOf(context: AdminContext, id: number) {
  const user = (await context.users.list()).find((candidate) => candidate.id === id);
  if (user === undefined) throw PlatformErrors.noRoute();
  return user;
}

interface EditForm {
  readonly values?: forms.Values;
  readonly errors?: forms.FieldErrors;
  readonly notice?: string;
  /** A token just made, shown this once. */
  readonly token?: string;
}

async function sendEditUser(context: AdminContext, request: IdRequest, reply: FastifyReply, form: EditForm) {
  const { t } = context.page(request);
  const user = await userOf(context, request.params.id);
  const base = `${context.config.basePath}/admin/users`;
  const tokens = (await context.users.listTokens(user.username)).filter((token) => token.revoked_at === null);
  const fields: forms.Field[] = [
    { name: 'role', label: t.user.role, type: 'select', options: roleOptions(t) },
    { name: 'password', label: t.user.newPassword, type: 'password', autocomplete: 'new-password', hint: t.user.newPasswordHint },
  ];
  return forms.sendForm(context, request, reply, {
    heading: `${t.user.edit}: ${user.username}`,
    action: `${base}/${user.id}/edit`,
    fields,
    values: form.values ?? { role: user.role },
    errors: form.errors,
    notice: form.notice,
    submit: t.form.save,
    after: {
      template: 'tokens',
      model: {
        tokens: tokens.map((token) => ({ ...token, revoke: `${base}/${user.id}/tokens/${token.id}/revoke` })),
        create: `${base}/${user.id}/tokens`,
        token: form.token,
      },
    },
    back: { href: `${base}/`, label: t.form.back },
  });
}

function editUser(context: AdminContext) {
  return async (request: forms.ItemPageRequest, reply: FastifyReply) =>
    sendEditUser(context, request, reply, { notice: forms.noticeOf(context.page(request), request.query) });
}

/** A new role, a new password, or both: each through the users service, which the sessions read on their next request. */
function updateUser(context: AdminContext) {
  return async (
    request: FastifyRequest<{ Params: Static<typeof forms.IdParams>; Body: Static<typeof EditUserBody> }>,
    reply: FastifyReply,
  ) => {
    const page = context.page(request);
    const user = await userOf(context, request.params.id);
    const { role, password } = request.body;
    // The role is known to be one before the password is written, so that a refusal of either changes nothing.
    const errors =
      forms.validationErrorsOf(request, page) ??
      (isRole(role) ? undefined : { role: page.t.form.invalid }) ??
      (await forms.attempt(page, async () => {
        if (password !== undefined && password !== '') await context.users.setPassword(user.username, password);
        if (role !== user.role) await context.users.setRole(user.username, role);
      }));
    if (errors !== undefined) return sendEditUser(context, request, reply, { values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/users/${user.id}/edit?saved=1`, 303);
  };
}

function createToken(context: AdminContext) {
  return async (
    request: FastifyRequest<{ Params: Static<typeof forms.IdParams>; Body: Static<typeof TokenBody> }>,
    reply: FastifyReply,
  ) => {
    const user = await userOf(context, request.params.id);
    const { token } = await context.users.createToken(user.username, request.body.name.trim() || 'editor');
    return sendEditUser(context, request, reply, { token });
  };
}

function revokeToken(context: AdminContext) {
  return async (request: FastifyRequest<{ Params: Static<typeof TokenParams> }>, reply: FastifyReply) => {
    const user = await userOf(context, request.params.id);
    const tokens = await context.users.listTokens(user.username);
    if (!tokens.some((token) => token.id === request.params.token)) throw PlatformErrors.noRoute();
    await context.users.revokeToken(request.params.token);
    return reply.redirect(`${context.config.basePath}/admin/users/${user.id}/edit?deleted=1`, 303);
  };
}
