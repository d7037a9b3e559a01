import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LANGUAGES, type Language } from '../../config/config.ts';
import { sameSecret } from '../../platform/auth/sessions.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import { classifyError, ValidationError } from '../../platform/http/classify-error.ts';
import { pageLanguageOf } from '../pages/pages.i18n.ts';
import { cookiesOf, setCookie } from './admin.cookies.ts';
import { ADMIN_DICTIONARIES } from './admin.i18n.ts';
import { LANGUAGE_COOKIE, LOGIN_COOKIE, SESSION_COOKIE, YEAR_SECONDS, type AdminContext, type AdminOptions } from './admin.context.ts';
import { adminRoutes } from './admin.routes.ts';
import { EDITOR_SCRIPT_PATH } from './admin.script.ts';
import { ADMIN_CSP, ADMIN_STYLESHEET_PATH, AdminViews } from './admin.views.ts';

const isLanguage = (value: unknown): value is Language => LANGUAGES.some((language) => language === value);

/**
 * The calendar editor under /admin: server-rendered pages behind a session cookie (the API keeps its own
 * credentials). Signed-out readers of a page are sent to the login form; every POST carries its form token.
 */
export async function adminPlugin(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { config } = options;
  const views = new AdminViews();
  const context: AdminContext = {
    ...options,
    views,
    cookiePath: `${config.basePath}/admin`,
    secure: config.baseUrl.startsWith('https:'),
    page: (request) => ({
      language: request.adminLanguage,
      t: ADMIN_DICTIONARIES[request.adminLanguage],
      user: request.adminSession?.user ?? null,
      csrf: request.adminSession?.csrf ?? '',
      basePath: config.basePath,
      path: request.url.slice(config.basePath.length),
    }),
  };
  app.decorateRequest('adminSession', null);
  app.decorateRequest('adminLanguage', config.defaultLanguage);

  app.addHook('onRequest', readSession(context));
  // A filter form sends its empty fields: on a page they mean the filter is not used.
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query !== undefined && query !== null) for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
    done();
  });
  // Registered before the token's check, which then finds the token of a form with a file too.
  await readFormsWithFiles(app, config.mediaMaxBytes);
  // After the body is parsed and before anything runs: a POST without its form's token changes nothing.
  app.addHook('preValidation', async (request) => {
    if (request.method !== 'POST') return;
    const given = (request.body as { csrf?: unknown } | null | undefined)?.csrf;
    const expected = request.adminSession?.csrf ?? cookiesOf(request).get(LOGIN_COOKIE) ?? '';
    if (expected === '' || !sameSecret(given, expected)) throw PlatformErrors.forbidden(true);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => sendErrorPage(context, error, request, reply));
  await app.register(
    async (scope) => scope.setNotFoundHandler(async (request, reply) => sendErrorPage(context, PlatformErrors.noRoute(), request, reply)),
    { prefix: '/admin' },
  );

  app.get(ADMIN_STYLESHEET_PATH, {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=86400' }).send(views.stylesheet),
  });
  app.get(EDITOR_SCRIPT_PATH, {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (request, reply) => views.script.send(request, reply),
  });
  await app.register(adminRoutes, { context });
}

/** Every editor request: its headers, language and session; a signed-out visitor is sent to the login form. */
function readSession(context: AdminContext) {
  const { config, sessions } = context;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers({ 'content-security-policy': ADMIN_CSP, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    const cookies = cookiesOf(request);
    request.adminLanguage = languageOf(request, cookies.get(LANGUAGE_COOKIE), reply, context);
    const token = cookies.get(SESSION_COOKIE);
    request.adminSession = token === undefined || token === '' ? null : await sessions.resolve(token);
    // The editor acts for the session's user only: an Authorization header is the API's, not a way in here.
    request.user = request.adminSession?.user ?? null;
    // A file is read whole before its form's token is checked: only a signed-in user's (the login form has none).
    if (request.adminSession === null && /^multipart\//i.test(request.headers['content-type'] ?? ''))
      throw PlatformErrors.unsupportedMediaType();
    if (request.adminSession === null && request.routeOptions.config.access !== 'public') {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw PlatformErrors.forbidden(true);
      const ended = token !== undefined && token !== '';
      if (ended) setCookie(reply, SESSION_COOKIE, '', { path: context.cookiePath, secure: context.secure, maxAge: 0 });
      const next = encodeURIComponent(request.url);
      return reply.redirect(`${config.basePath}/admin/login?next=${next}${ended ? '&ended=1' : ''}`, 303);
    }
  };
}

/** A form with files (the event editor's image, an upload to the media library, an import) is read whole, each file as its name and bytes. */
async function readFormsWithFiles(app: FastifyInstance, maxFileBytes: number): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    // A browser sends every file field, chosen or not: the import form has five.
    limits: { fileSize: maxFileBytes, files: 5, fields: 2000, parts: 2005 },
    onFile: async (part: MultipartFile & { value?: unknown }) => {
      part.value = { filename: part.filename, bytes: await part.toBuffer() };
    },
  });
}

/** `?lang=` chooses and is remembered in a cookie; then the cookie; then the browser's languages. */
function languageOf(request: FastifyRequest, remembered: string | undefined, reply: FastifyReply, context: AdminContext): Language {
  const asked = (request.query as { lang?: unknown } | undefined)?.lang;
  if (isLanguage(asked)) {
    setCookie(reply, LANGUAGE_COOKIE, asked, { path: context.cookiePath, secure: context.secure, maxAge: YEAR_SECONDS });
    return asked;
  }
  if (isLanguage(remembered)) return remembered;
  return pageLanguageOf(request, context.config.defaultLanguage).language;
}

function sendErrorPage(context: AdminContext, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = classifyError(error);
  const status = appError.status;
  if (status >= 500) request.log.error({ err: error }, 'admin page failed');
  const page = context.page(request);
  const { t } = page;
  const params = appError instanceof ValidationError ? [...appError.missing, ...Object.keys(appError.invalid)] : [];
  const [heading, text] =
    status === 400
      ? [t.badRequest, t.badRequestText]
      : status === 401 || status === 403
        ? [t.forbidden, t.forbiddenText]
        : status === 429
          ? [t.forbidden, t.lockedOut]
          : status === 413
            ? [t.tooLarge, t.tooLargeText]
            : status >= 500
              ? [t.failed, `${t.failedText} ${request.id}`]
              : [t.notFound, t.notFoundText];
  void reply.headers(appError.headers);
  return context.views.send(reply, context.views.render(page, heading, 'error', { heading, text, params }), status);
}
