import { randomBytes } from 'node:crypto';
import Type, { type Static } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { classifyError } from '../../platform/http/classify-error.ts';
import { can } from '../calendar.capabilities.ts';
import { cookiesOf, setCookie } from './admin.cookies.ts';
import { dashboardPage } from './admin.dashboard.ts';
import { editEventForm, newEventForm, saveEvent } from './admin.editor.ts';
import { EditorBody, EditorParams, EditorQuery } from './admin.editor.form.ts';
import { ChoicesParams, ChoicesQuery, pickerChoices, PreviewQuery, previewDatesOf } from './admin.editor.assist.ts';
import { previewEvent } from './admin.preview.ts';
import { importRoutes } from './admin.import.ts';
import { BulkBody, EventsListQuery, eventsBulkAction, eventsListPage } from './admin.events.ts';
import { LOGIN_COOKIE, SESSION_COOKIE, type AdminContext } from './admin.context.ts';
import { placeRoutes } from './admin.places.ts';
import { termRoutes } from './admin.terms.ts';
import { settingsScreenRoutes } from './admin.settings.ts';
import { userRoutes } from './admin.users.ts';
import { webhookRoutes } from './admin.webhooks.ts';
import { mediaScreenRoutes } from './admin.media.ts';

const LoginQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  ended: Type.Optional(Type.String({ maxLength: 1 })),
  out: Type.Optional(Type.String({ maxLength: 1 })),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
});
const LoginBody = Type.Object({
  csrf: Type.String({ maxLength: 200 }),
  username: Type.String({ maxLength: 200 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
const CsrfBody = Type.Object({ csrf: Type.String({ maxLength: 200 }) });

/** A sign-in's `next`: a path of the editor on this site, never elsewhere (no `//host`, no scheme, no backslash). */
export function localNext(context: AdminContext, next: string | undefined): string {
  const home = `${context.config.basePath}/admin/`;
  if (next === undefined || !/^\/[^/\\]/.test(next)) return home;
  const target = new URL(next, 'http://local');
  if (target.host !== 'local' || !`${target.pathname}/`.startsWith(`${context.config.basePath}/admin/`)) return home;
  return `${target.pathname}${target.search}`;
}

/** The editor's sign-in, sign-out and pages. */
export async function adminRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  app.get('/admin/login', { config: { access: 'public' }, schema: { hide: true, querystring: LoginQuery }, handler: showLogin(context) });
  app.post('/admin/login', { config: { access: 'public' }, schema: { hide: true, body: LoginBody }, handler: logIn(context) });
  app.post('/admin/logout', { config: { access: 'public' }, schema: { hide: true, body: CsrfBody }, handler: logOut(context) });
  // Where people used to WordPress, or to most sites, look for the way in.
  for (const url of ['/wp-admin', '/login']) {
    app.get(url, { config: { access: 'public' }, schema: { hide: true }, handler: toEditor(context) });
  }
  app.get('/admin', { config: { access: 'edit' }, schema: { hide: true }, handler: dashboardPage(context) });
  app.post('/admin/events/bulk', {
    config: { access: 'edit' },
    schema: { hide: true, body: BulkBody },
    handler: eventsBulkAction(context),
  });
  app.get('/admin/events/new', { config: { access: 'edit' }, schema: { hide: true }, handler: newEventForm(context) });
  app.post('/admin/events/new', { config: { access: 'edit' }, schema: { hide: true, body: EditorBody }, handler: saveEvent(context) });
  app.get('/admin/events/:id/edit', {
    config: { access: 'edit' },
    schema: { hide: true, params: EditorParams, querystring: EditorQuery },
    handler: editEventForm(context),
  });
  app.post('/admin/events/:id/edit', {
    config: { access: 'edit' },
    schema: { hide: true, params: EditorParams, body: EditorBody },
    handler: saveEvent(context),
  });
  app.get('/admin/events/:id/preview', {
    config: { access: 'edit' },
    schema: { hide: true, params: EditorParams },
    handler: previewEvent(context),
  });
  app.get('/admin/events/preview-dates', {
    config: { access: 'edit' },
    schema: { hide: true, querystring: PreviewQuery },
    handler: previewDatesOf(context),
  });
  app.get('/admin/choices/:kind', {
    config: { access: 'edit' },
    schema: { hide: true, params: ChoicesParams, querystring: ChoicesQuery },
    handler: pickerChoices(context),
  });
  app.get('/admin/events', {
    config: { access: 'edit' },
    schema: { hide: true, querystring: EventsListQuery },
    handler: eventsListPage(context),
  });
  await app.register(placeRoutes, { context });
  await app.register(termRoutes, { context });
  await app.register(settingsScreenRoutes, { context });
  await app.register(userRoutes, { context });
  await app.register(webhookRoutes, { context });
  await app.register(mediaScreenRoutes, { context });
  // A scope of its own: its multipart parser is for its form only.
  await app.register(importRoutes, { context });
}

function toEditor(context: AdminContext) {
  return async (_request: FastifyRequest, reply: FastifyReply) => reply.redirect(`${context.config.basePath}/admin/`, 303);
}

interface LoginForm {
  readonly status: number;
  readonly next: string;
  readonly username?: string;
  readonly error?: string;
  readonly notice?: string;
}

/** The login form with a fresh form token in its own cookie. */
function renderLogin(context: AdminContext, request: FastifyRequest, reply: FastifyReply, form: LoginForm): FastifyReply {
  const csrf = cookiesOf(request).get(LOGIN_COOKIE) || randomBytes(24).toString('base64url');
  setCookie(reply, LOGIN_COOKIE, csrf, { path: context.cookiePath, secure: context.secure });
  const page = context.page(request);
  const html = context.views.render(page, page.t.logIn, 'login', { csrf, username: '', ...form });
  return context.views.send(reply, html, form.status);
}

function showLogin(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof LoginQuery> }>, reply: FastifyReply) => {
    const { next, ended, out } = request.query;
    if (request.adminSession !== null) return reply.redirect(localNext(context, next), 303);
    const { t } = context.page(request);
    const notice = ended !== undefined ? t.expired : out !== undefined ? t.loggedOut : undefined;
    return renderLogin(context, request, reply, { status: 200, next: localNext(context, next), notice });
  };
}

function logIn(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: Static<typeof LoginBody> }>, reply: FastifyReply) => {
    const { username, password } = request.body;
    const next = localNext(context, request.body.next);
    const { t } = context.page(request);
    let user;
    try {
      user = await context.authenticator.verifyPassword(username, password, request.ip);
    } catch (error) {
      const refused = classifyError(error);
      if (refused.status !== 401 && refused.status !== 429) throw error;
      void reply.headers(refused.headers);
      const message = refused.status === 429 ? t.lockedOut : t.wrongPassword;
      return renderLogin(context, request, reply, { status: refused.status, next, username, error: message });
    }
    if (!can(user.role, 'edit')) return renderLogin(context, request, reply, { status: 403, next, username, error: t.notAllowed });
    const token = await context.sessions.start(user.id);
    setCookie(reply, SESSION_COOKIE, token, { path: context.cookiePath, secure: context.secure });
    setCookie(reply, LOGIN_COOKIE, '', { path: context.cookiePath, secure: context.secure, maxAge: 0 });
    return reply.redirect(next, 303);
  };
}

function logOut(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = cookiesOf(request).get(SESSION_COOKIE);
    if (token !== undefined && token !== '') await context.sessions.end(token);
    setCookie(reply, SESSION_COOKIE, '', { path: context.cookiePath, secure: context.secure, maxAge: 0 });
    return reply.redirect(`${context.config.basePath}/admin/login?out=1`, 303);
  };
}
