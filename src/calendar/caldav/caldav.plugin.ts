import type { FastifyInstance } from 'fastify';
import { answerConditionally } from '../../platform/http/conditional-get.ts';
import type { CalendarServices } from '../calendar.services.ts';
import { ChangesService } from '../changes/changes.service.ts';
import { loadSiteSettings } from '../common/context.ts';
import { davErrors, sendDavError } from './caldav.errors.ts';
import { DavPaths } from './caldav.paths.ts';
import { caldavRoutes } from './caldav.routes.ts';
import { CaldavService } from './caldav.service.ts';
import { IcalImport } from '../ical/ical.import.ts';

export interface CaldavOptions {
  readonly services: CalendarServices;
  /** BASE_URL's path: hrefs are absolute paths. */
  readonly basePath: string;
}

/** The WebDAV methods Fastify does not know by default, each with a body. */
const EXTENSION_METHODS = ['PROPFIND', 'REPORT', 'PROPPATCH', 'MKCALENDAR', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];

/**
 * CalDAV (RFC 4791, docs/caldav.md) at `/dav/`: its own XML and iCalendar
 * bodies (XML read with entity expansion off), its DAV:error answers, and Basic
 * authentication, which every CalDAV client speaks (an API token may be the
 * password); anonymous callers read the public collections only with
 * CALDAV_ANONYMOUS, and never write.
 */
export async function caldavPlugin(app: FastifyInstance, { services, basePath }: CaldavOptions): Promise<void> {
  const wellKnown = `${basePath}/.well-known/caldav`;
  const { deps } = services;
  for (const method of EXTENSION_METHODS) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  app.setErrorHandler(sendDavError);
  // This scope reads raw bodies (XML, iCalendar); the platform's JSON and form parsers stay outside it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.decorateRequest('siteSettings', null);
  app.addHook('onRequest', loadSiteSettings(deps));
  app.addHook('onRequest', (request, _reply, done) => {
    // OPTIONS and the well-known redirect tell nothing of the calendar: clients ask them before they sign in.
    const open = deps.config.caldavAnonymous || request.method === 'OPTIONS' || request.routeOptions.url === wellKnown;
    done(request.user === null && !open ? davErrors.credentialsRequired() : undefined);
  });
  // An event's GET carries its ETag and answers If-None-Match with a 304, as the API's reads do.
  app.decorateReply('itemVersion', null);
  app.addHook('onSend', answerConditionally);
  const changes = new ChangesService({ db: deps.store.db, config: deps.config, ...services });
  const importer = new IcalImport({
    db: deps.store.db,
    config: deps.config,
    passwords: deps.passwords,
    translateError: deps.store.translateError,
  });
  const paths = new DavPaths(basePath);
  const service = new CaldavService(
    {
      db: deps.store.db,
      config: deps.config,
      ical: services.ical,
      categories: services.categories,
      changes,
      events: services.events,
      importer,
    },
    paths,
  );
  await app.register(caldavRoutes, { deps, service, paths });
}
