import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { classifyError, ValidationError } from '../../platform/http/classify-error.ts';
import { answerConditionally } from '../../platform/http/conditional-get.ts';
import type { CalendarServices } from '../calendar.services.ts';
import { pagesItemRoutes } from './pages.items.routes.ts';
import { pagesViewRoutes } from './pages.routes.ts';
import { badPageArgument, pageNotFound } from './pages.errors.ts';
import { loadSiteSettings } from '../common/context.ts';
import { PagesService } from './pages.service.ts';
import { embedCsp, LOGO_PATH, PAGE_CSP, PageViews, STYLESHEET_PATH } from './pages.views.ts';
import { parseTheme, themeCss, THEME_PATH } from './pages.theme.ts';

/** The first segments of the pages' paths. */
const PAGE_PREFIXES = ['/events', '/event', '/venue', '/organizer', '/tag', '/embed'];

export interface PagesOptions {
  readonly config: Config;
  readonly services: CalendarServices;
}

/**
 * The calendar as people see it (issue 25): server-rendered HTML at the site root, outside the API's
 * namespace. Errors are pages too (in the reader's language); unknown paths stay the API's JSON 404.
 */
export async function pagesPlugin(app: FastifyInstance, { config, services }: PagesOptions): Promise<void> {
  const pages = new PagesService(services, config);
  const views = new PageViews();

  // A page is the anonymous reader's whoever asks: caches need not tell callers apart (cache-control.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, sameForEveryCaller: true };
  });
  // A page read carries an ETag and answers If-None-Match with a 304, as the API's reads do.
  app.decorateReply('itemVersion', null);
  app.addHook('onSend', answerConditionally);
  app.decorateRequest('siteSettings', null);
  app.addHook('onRequest', loadSiteSettings(services.deps));
  const embedPrefix = `${config.basePath}/embed/`;
  const embedPolicy = embedCsp(config.embedOrigins);
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith(embedPrefix)) {
      // Made to be framed by other sites (EMBED_ORIGINS), errors included: the CSP says which, and no X-Frame-Options contradicts it.
      void reply.header('content-security-policy', embedPolicy).removeHeader('x-frame-options');
    } else {
      void reply.header('content-security-policy', PAGE_CSP);
    }
    done();
  });
  // A form sends its empty fields (a search left blank, "any" category): on a page they mean the filter is not used.
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query !== undefined && query !== null) for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
    done();
  });
  app.setErrorHandler((error: FastifyError, request, reply) => sendErrorPage(pages, views, error, request, reply));

  registerAssets(app, pages, views);
  // Crawlers may read the calendar; the editor, the framed copies and the CalDAV collections are not pages to index.
  const robots = ['User-agent: *', ...['/admin/', '/embed/', '/dav/'].map((path) => `Disallow: ${config.basePath}${path}`), ''].join('\n');
  app.get('/robots.txt', {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply.headers({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=86400' }).send(robots),
  });
  await app.register(pagesViewRoutes, { pages, views });
  await app.register(pagesItemRoutes, { pages, views });
  // Below the pages' own prefixes an unknown address is a page too; anywhere else it stays the API's JSON 404.
  for (const prefix of PAGE_PREFIXES) {
    await app.register(
      async (scope) => scope.setNotFoundHandler(async (request, reply) => sendErrorPage(pages, views, pageNotFound(), request, reply)),
      { prefix },
    );
  }
}

/** The pages' stylesheets and the site's logo. */
function registerAssets(app: FastifyInstance, pages: PagesService, views: PageViews): void {
  app.get(STYLESHEET_PATH, {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=86400' }).send(views.stylesheet),
  });
  // Made from its address alone (pages.theme.ts): the same address is the same stylesheet for ever.
  app.get(THEME_PATH, {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const theme = parseTheme(request.query as Record<string, unknown>);
      if ('invalid' in theme) throw badPageArgument(theme.invalid);
      return reply
        .headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' })
        .send(themeCss(theme.accent, theme.colors));
    },
  });
  // The logo is the image the `site_logo` setting names, at the size that suits a header; another logo is another address.
  app.get(`${LOGO_PATH}:id`, {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const url = await pages.logoUrl(request, (request.params as { id: string }).id);
      if (url === undefined) throw pageNotFound();
      return reply.headers({ 'cache-control': 'public, max-age=300' }).redirect(url, 302);
    },
  });
}

function sendErrorPage(pages: PagesService, views: PageViews, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = classifyError(error);
  const status = appError.status;
  if (status >= 500) request.log.error({ err: error }, 'page failed');
  const page = pages.pageRequest(request, {}, false);
  const { t } = page;
  const params =
    appError instanceof ValidationError
      ? [...appError.missing, ...Object.keys(appError.invalid)]
      : Object.keys((appError.data.params as Record<string, unknown> | undefined) ?? {});
  const [heading, text] =
    status === 400
      ? [t.badRequest, t.badRequestText]
      : status === 429
        ? [t.tooMany, t.tooManyText]
        : status >= 500
          ? [t.failed, `${t.failedText} ${request.id}`]
          : [t.notFound, t.notFoundText];
  void reply.headers(appError.headers);
  return views.send(
    reply,
    views.render(
      page,
      { title: heading, path: request.url.split('?')[0]?.slice(pages.config.basePath.length) ?? '/', noindex: true },
      'error',
      { heading, text, params: status === 400 ? params : [] },
    ),
    status,
  );
}
