import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { calendarCapabilities } from './calendar/calendar.capabilities.ts';
import { calendarPlugin, NAMESPACE } from './calendar/calendar.plugin.ts';
import { buildCalendarServices } from './calendar/calendar.services.ts';
import { settingsRoutes } from './calendar/settings/settings.routes.ts';
import { pagesPlugin } from './calendar/pages/pages.plugin.ts';
import { caldavPlugin } from './calendar/caldav/caldav.plugin.ts';
import { mediaFilesRoutes } from './calendar/media/media.files.routes.ts';
import { mediaRoutes } from './calendar/media/media.routes.ts';
import { WP_NAMESPACE } from './calendar/common/context.ts';
import { adminPlugin } from './calendar/admin/admin.plugin.ts';
import { sendWpError } from './calendar/errors.ts';
import type { Config } from './config/config.ts';
import { entityManagementCapabilities } from './entity-management/entity-management.capabilities.ts';
import { entityManagementPlugin } from './entity-management/entity-management.plugin.ts';
import { accessPlugin } from './platform/auth/access.plugin.ts';
import { Authenticator } from './platform/auth/authenticate.ts';
import { CapabilityRegistry, platformCapabilities } from './platform/auth/capabilities.ts';
import { PasswordHasher } from './platform/auth/passwords.ts';
import { FailureThrottle } from './platform/auth/throttle.ts';
import { SessionStore } from './platform/auth/sessions.ts';
import { UsersService } from './platform/auth/users.service.ts';
import type { BackgroundWork } from './platform/background.ts';
import type { Store } from './platform/db/database.ts';
import { PlatformErrors } from './platform/errors.ts';
import { lazyChildLogger, RequestLogController } from './platform/logger.ts';
import { cacheControlPlugin } from './platform/http/cache-control.ts';
import { compressionPlugin } from './platform/http/compression.ts';
import { healthRoutes } from './platform/http/health.routes.ts';
import { indexRoutes } from './platform/http/index.routes.ts';
import { finiteNumbersPlugin } from './platform/http/finite-numbers.ts';
import { compileOncePerSchema, serializersOncePerSchema } from './platform/http/compile-once.ts';
import { parseQuerystring } from './platform/http/querystring.ts';
import { parametersPlugin } from './platform/http/parameters.plugin.ts';
import { requestTarget } from './platform/http/request-target.ts';
import { rateLimitPlugin } from './platform/http/rate-limit.plugin.ts';
import { requestIdOf } from './platform/http/request-id.ts';
import { markResponse, securityPlugin } from './platform/http/security.plugin.ts';
import { decorateOpenApiDocument, openApiOptions } from './platform/openapi/openapi.ts';
import { contractPlugin, declareErrorSchema } from './platform/openapi/contract.ts';
import { WpErrorSchema } from './calendar/common/schemas.ts';
import { soapCapabilities } from './soap/soap.capabilities.ts';
import { soapPlugin } from './soap/soap.plugin.ts';
import { wpRestConventions } from './platform/wp-rest/conventions.plugin.ts';
import { wpOptionsRoutes } from './platform/wp-rest/options.routes.ts';
import { WpRouteTable } from './platform/wp-rest/route-table.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A client must finish sending its headers within this time, and its whole request within the next. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** What each role may do, as every surface declares it. */
export const CAPABILITY_SETS = [platformCapabilities, calendarCapabilities, entityManagementCapabilities, soapCapabilities];

export interface AppDependencies {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  /** The process's periodic and background work: the surfaces add theirs, the caller starts and stops it. */
  readonly background: BackgroundWork;
}

/** Builds the whole service. No side effects until the caller listens. */
export async function buildApp({ config, store, logger, background }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdOf,
    childLoggerFactory: lazyChildLogger as never,
    logController: new RequestLogController(),
    requestIdHeader: false,
    rewriteUrl: requestTarget(config.basePath),
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: {
      ignoreTrailingSlash: true,
      querystringParser: parseQuerystring,
      maxParamLength: 500,
    },
    connectionTimeout: 0,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Slow clients (slowloris: headers trickled in, or a body that never ends) are cut off; Node checks every second.
    http: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    keepAliveTimeout: 5_000,
    // Router-level refusals (a malformed percent-encoding in the path) get the surface's error shape, not Fastify's.
    frameworkErrors: (error, request, reply) => {
      markResponse(request, reply);
      return sendWpError(error, request, reply);
    },
    ajv: {
      // Scalars are coerced between types, never into or out of arrays: a list parameter declares both forms.
      customOptions: { allErrors: true, coerceTypes: true, removeAdditional: true, useDefaults: true },
      plugins: [finiteNumbersPlugin, compileOncePerSchema],
    },
    schemaController: { compilersFactory: { buildSerializer: serializersOncePerSchema() } },
  });

  const throttle = new FailureThrottle(store.db, 'login', {
    maxFailures: config.authMaxFailures,
    maxFailuresPerAddress: config.authMaxFailuresPerAddress,
    windowSeconds: config.authLockoutSeconds,
  });
  const passwords = new PasswordHasher(config.passwordHashCost);
  const authenticator = new Authenticator(store.db, throttle, passwords);
  const docsPrefix = `${config.basePath}/docs`;
  const capabilities = new CapabilityRegistry(CAPABILITY_SETS);

  // Set first: a route takes the error handler current when it is registered (the CORS preflight route included).
  app.setErrorHandler(sendWpError);
  // CORS registers its own preflight route, before every route must declare its access.
  await app.register(securityPlugin, { corsOrigins: config.corsOrigins });
  await app.register(accessPlugin, { authenticator, capabilities, publicPrefixes: [docsPrefix] });
  // Before the surfaces: hooks reach only the routes registered after them.
  await app.register(cacheControlPlugin, { maxAgeSeconds: config.httpCacheMaxAgeSeconds });
  // A compressed copy is a tenth or less of what it copies: a quarter of the answers' budget keeps the copies in use.
  await app.register(compressionPlugin, { cacheBytes: Math.floor(config.responseCacheBytes / 4) });
  await app.register(contractPlugin);
  declareErrorSchema(app, WpErrorSchema);
  await app.register(rateLimitPlugin, { perMinute: config.rateLimitPerMinute });
  await app.register(parametersPlugin);
  await app.register(swagger, openApiOptions(config));
  await app.register(swaggerUi, { routePrefix: docsPrefix, staticCSP: true, uiConfig: { persistAuthorization: false } });
  decorateOpenApiDocument(app);
  app.get(`${docsPrefix}/openapi.json`, { schema: { hide: true } }, async (request) =>
    app.openApiDocument((request.query as { plain?: unknown }).plain !== undefined),
  );

  app.setNotFoundHandler(async (request, reply) => sendWpError(PlatformErrors.noRoute(), request, reply));

  // Built once: the API's routes and the public pages read through the same services.
  const services = buildCalendarServices(config, store, background);
  await app.register(
    async (api) => {
      // The WordPress-shaped part: the index and the calendar namespace, with WordPress's REST conventions.
      await api.register(async (wp) => {
        const namespaces = [NAMESPACE, WP_NAMESPACE];
        const table = new WpRouteTable(config.basePath, config.baseUrl, namespaces, capabilities);
        await wp.register(wpRestConventions, { table, baseUrl: config.baseUrl });
        await wp.register(indexRoutes, { config, namespaces, table });
        await wp.register(calendarPlugin, { prefix: `/${NAMESPACE}`, config, store, table, services });
        await wp.register(mediaRoutes, { prefix: `/${WP_NAMESPACE}`, service: services.media, maxBytes: config.mediaMaxBytes });
        await wp.register(settingsRoutes, { prefix: `/${WP_NAMESPACE}`, service: services.deps.settings });
        await wp.register(wpOptionsRoutes, { table });
      });
      await api.register(healthRoutes, { store });
      await api.register(entityManagementPlugin, {
        prefix: '/apiservice/api/services',
        store,
        responseCacheBytes: config.responseCacheBytes,
        background,
      });
      await api.register(soapPlugin, { config, store, authenticator, background });
      // The calendar's public pages, at the site root (their own error pages and Content-Security-Policy).
      await api.register(pagesPlugin, { config, services });
      // The calendar over CalDAV, for calendar apps (docs/caldav.md): its own XML errors and parsers.
      await api.register(caldavPlugin, { services, basePath: config.basePath });
      await api.register(mediaFilesRoutes, { service: services.media });
      // The editor: its own pages, session cookie, CSRF tokens and Content-Security-Policy.
      const sessions = new SessionStore(store.db, {
        idleSeconds: config.adminSessionIdleSeconds,
        maxSeconds: config.adminSessionMaxSeconds,
      });
      await api.register(adminPlugin, { config, services, authenticator, sessions, users: new UsersService(store, passwords) });
    },
    { prefix: config.basePath },
  );

  return app;
}
