import { answerConditionally } from '../platform/http/conditional-get.ts';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { withHookFirst } from '../platform/http/route-hooks.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../platform/db/database.ts';
import type { WpRouteTable } from '../platform/wp-rest/route-table.ts';
import { PlatformErrors } from '../platform/errors.ts';
import { eventsRoutes } from './events/events.routes.ts';
import { icalRoutes } from './ical/ical.routes.ts';
import { discoveryRoutes } from './discovery/discovery.routes.ts';
import { sendWpError } from './errors.ts';
import { WpErrorSchema } from './common/schemas.ts';
import { languageOf, loadSiteSettings, NAMESPACE, type CalendarDeps } from './common/context.ts';
import type { CalendarServices } from './calendar.services.ts';
import type { CalendarVersionHolder } from './common/calendar-version.ts';
import { SeriesOccurrences, seriesLimits } from './recurrence/recurrence.series.ts';
import { organizersRoutes } from './organizers/organizers.routes.ts';
import { categoryRoutes, tagRoutes } from './terms/terms.routes.ts';
import { venuesRoutes } from './venues/venues.routes.ts';
import { icalImportRoutes } from './ical/ical.import.routes.ts';
import { changesRoutes } from './changes/changes.routes.ts';
import { pruneChangeLog, retentionSeconds } from './changes/changes.retention.ts';
import { ChangesService } from './changes/changes.service.ts';
import { webhooksPlugin } from './webhooks/webhooks.plugin.ts';

export { NAMESPACE };

declare module 'fastify' {
  interface FastifyRequest {
    /** The calendar version this request reads at, once asked (`CalendarVersions.of`). */
    calendarVersion: CalendarVersionHolder['calendarVersion'];
  }
}

export interface CalendarOptions {
  readonly config: Config;
  readonly store: Store;
  /** The WordPress-shaped routes (the namespace index lists this namespace's). */
  readonly table: WpRouteTable;
  /** The services, shared with the public pages. */
  readonly services: CalendarServices;
}

/**
 * The `calendar/events/v1` namespace: WordPress-shaped errors, the
 * namespace index and `/doc`, and the resource routes.
 */
const NOT_MODIFIED = { description: 'Not modified: the ETag sent in If-None-Match is current (no body)', type: 'null' };
const IF_MATCH = {
  type: 'string',
  description: "The item's ETag as read (or `*`): the write is made only if the item is still at that version, else a 412",
};

export async function calendarPlugin(app: FastifyInstance, { config, store, table, services }: CalendarOptions): Promise<void> {
  const namespaceUrl = `${config.baseUrl}/${NAMESPACE}`;
  app.decorateRequest('calendarVersion', null);
  app.decorateRequest('siteSettings', null);
  // Before the hook below, whose Content-Language is the site's default language when none is asked for.
  app.addHook('onRequest', loadSiteSettings(services.deps));
  app.setErrorHandler(sendWpError);
  app.setNotFoundHandler(async (request, reply) => sendWpError(PlatformErrors.noRoute(), request, reply));

  // Responses carry the language asked for: by the query string as the request arrives, by the body once parsed.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('content-language', languageOf(request, config));
    done();
  });
  // Every read carries an ETag; If-None-Match gets a 304 (issue 23), which every read documents. An item's tag names its
  // version (`reply.itemVersion`, read or written), which a write to the item checks If-Match against (412, 428).
  app.decorateReply('itemVersion', null);
  app.addHook('onSend', answerConditionally);
  const readsBody = (method: string | string[]) => [method].flat().some((name) => name !== 'GET' && name !== 'HEAD');
  // WordPress reads write arguments from the query string too; the body wins.
  const mergeQueryIntoBody = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const query = request.query as Record<string, unknown> | undefined;
    const body = request.body;
    if (query !== undefined && Object.keys(query).length > 0) {
      if (body === undefined || body === null) request.body = { ...query };
      else if (typeof body === 'object' && !Array.isArray(body)) request.body = { ...query, ...body };
    }
    void reply.header('content-language', languageOf(request, config));
    done();
  };
  app.addHook('onRoute', (route) => {
    if (readsBody(route.method)) route.preValidation = withHookFirst(mergeQueryIntoBody, route.preValidation);
    const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
    if ([route.method].flat().includes('GET') && responses?.[200] !== undefined) responses[304] = NOT_MODIFIED;
    if (route.config?.writesItem === true && route.schema !== undefined && responses !== undefined) {
      // 412: If-Match names no current ETag of the item, or the item does not exist; 428: REQUIRE_IF_MATCH and no If-Match.
      responses[412] = WpErrorSchema;
      responses[428] = WpErrorSchema;
      const headers = (route.schema.headers ?? {}) as { properties?: Record<string, unknown> };
      route.schema.headers = { type: 'object', ...headers, properties: { ...headers.properties, 'if-match': IF_MATCH } };
    }
  });

  await app.register(discoveryRoutes, { namespace: NAMESPACE, namespaceUrl, baseUrl: config.baseUrl, table });
  // The services, built once with what they depend on (calendar.services.ts); routes only hand them each request's caller and arguments.
  const { deps, events, ical, venues, organizers, categories, tags } = services;
  await app.register(eventsRoutes, { deps, service: events });
  await app.register(icalRoutes, { deps, service: ical });
  await app.register(venuesRoutes, { deps, service: venues });
  maintainOverTime(app.log, deps);
  await app.register(organizersRoutes, { deps, service: organizers });
  await app.register(categoryRoutes, { deps, service: categories });
  await app.register(tagRoutes, { deps, service: tags });
  await app.register(icalImportRoutes, deps);
  const changes = new ChangesService({ db: store.db, config, events, venues, organizers, categories, tags });
  await app.register(changesRoutes, { deps, service: changes });
  await app.register(webhooksPlugin, { deps, changes });
}

const MAINTAIN_EVERY_MS = 60 * 60 * 1000;

/**
 * What time does to the calendar, checked when the server is ready and
 * every hour, in every process (each piece of work done once, by whichever
 * process gets it first): endless series gain occurrences as time moves
 * their horizon, and the change log forgets removals older than
 * CHANGES_RETENTION_DAYS.
 */
function maintainOverTime(log: FastifyBaseLogger, { background, store, config }: CalendarDeps): void {
  const series = new SeriesOccurrences(seriesLimits(config));
  background.every({
    name: 'extend recurring series',
    everyMs: MAINTAIN_EVERY_MS,
    run: async () => {
      const count = await series.extendDue(store.db, new Date());
      if (count > 0) log.info({ series: count }, 'recurring series extended');
    },
  });
  background.every({
    name: 'prune the change log',
    everyMs: MAINTAIN_EVERY_MS,
    run: async () => {
      const { pruned, floor } = await pruneChangeLog(store.db, retentionSeconds(config), new Date());
      if (pruned > 0) log.info({ pruned, floor }, 'change log pruned');
    },
  });
}
