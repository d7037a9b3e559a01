import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../platform/errors.ts';
import { requestContext, type CalendarDeps } from '../common/context.ts';
import { davErrors } from './caldav.errors.ts';
import { SERVICE_PATH, type Collection, type DavPaths, type Target } from './caldav.paths.ts';
import {
  calendarProperties,
  eventProperties,
  homeProperties,
  principalProperties,
  propertiesResponse,
  rootProperties,
} from './caldav.properties.ts';
import { readPropfind, readReport, type PropRequest } from './caldav.requests.ts';
import type { CaldavReader } from './caldav.reader.ts';
import type { CaldavService } from './caldav.service.ts';
import { multistatus, type DavResponse } from './caldav.xml.ts';

export interface CaldavRoutesOptions {
  readonly deps: CalendarDeps;
  readonly service: CaldavService;
  readonly paths: DavPaths;
}

/** What the service answers (OPTIONS and Allow), and what it refuses: collections and properties are not written here. */
const METHODS = ['OPTIONS', 'GET', 'HEAD', 'PROPFIND', 'REPORT', 'PUT', 'DELETE'] as const;
const REFUSED_METHODS = ['POST', 'PATCH', 'PROPPATCH', 'MKCALENDAR', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'] as const;
const ALLOW = METHODS.join(', ');
// RFC 4918 class 1 and 3, RFC 4791: what OPTIONS announces (no locks: class 2 is not).
const DAV_CLASSES = '1, 3, calendar-access';
/** The largest request body (a PROPFIND, a REPORT naming many hrefs): over it, a 413. */
const DAV_BODY_LIMIT_BYTES = 512 * 1024;
const MULTISTATUS_TYPE = 'application/xml; charset=utf-8';
const SERVICE_URLS = [SERVICE_PATH, `${SERVICE_PATH}/*`];

/** The CalDAV service (issue 42, docs/caldav.md): each method one handler. */
export async function caldavRoutes(app: FastifyInstance, options: CaldavRoutesOptions): Promise<void> {
  // A resource's ETag is the getetag its collection names, which a compressed copy's own tag would not be.
  const config = { access: 'public' as const, sentAsItIs: true };
  const route = (method: HTTPMethods | HTTPMethods[], handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => {
    for (const url of SERVICE_URLS) app.route({ method, url, config, bodyLimit: DAV_BODY_LIMIT_BYTES, schema: { hide: true }, handler });
  };
  route('OPTIONS', answerOptions);
  route('PROPFIND', (request, reply) => propfind(options, request, reply));
  route('REPORT', (request, reply) => report(options, request, reply));
  route('GET', (request, reply) => getResource(options, request, reply));
  route('PUT', (request, reply) => putResource(options, request, reply));
  route('DELETE', (request, reply) => deleteResource(options, request, reply));
  route([...REFUSED_METHODS], async (request) => {
    throw davErrors.readOnly(request.method);
  });
  app.route({
    method: ['GET', 'PROPFIND', 'OPTIONS'],
    url: '/.well-known/caldav',
    config,
    schema: { hide: true },
    handler: (_request, reply) => wellKnown(options.deps.config, reply),
  });
}

/** RFC 6764 §5: the well-known address leads to the service root. */
async function wellKnown(config: Config, reply: FastifyReply): Promise<void> {
  await reply.code(301).header('location', `${config.baseUrl}${SERVICE_PATH}/`).send();
}

async function answerOptions(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await reply.code(200).headers({ dav: DAV_CLASSES, allow: ALLOW, 'content-length': '0' }).send();
}

/** Depth 0 or 1; absent is 0 as most servers read it; infinity is refused (RFC 4918 §9.1). */
function depthOf(request: FastifyRequest): 0 | 1 {
  const raw = request.headers.depth;
  const depth = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase() ?? '0';
  if (depth === '0' || depth === '1') return Number(depth) as 0 | 1;
  if (depth === 'infinity') throw davErrors.finiteDepth();
  throw davErrors.badDepth(depth);
}

function targetOf(paths: DavPaths, request: FastifyRequest): Target {
  const target = paths.parse(request.url);
  if (target === undefined) throw davErrors.notFound();
  return target;
}

function readerOf({ deps, service }: CaldavRoutesOptions, request: FastifyRequest): CaldavReader {
  return service.forRequest(requestContext(request, deps));
}

async function sendMultistatus(reply: FastifyReply, responses: readonly DavResponse[], syncToken?: string): Promise<void> {
  await reply.code(207).type(MULTISTATUS_TYPE).send(multistatus(responses, syncToken));
}

async function propfind(options: CaldavRoutesOptions, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const depth = depthOf(request);
  const asked = readPropfind(request.body);
  const target = targetOf(options.paths, request);
  const reader = readerOf(options, request);
  await sendMultistatus(reply, await describe(options.paths, reader, target, depth, asked, request.url.split('?')[0] ?? ''));
}

async function describe(paths: DavPaths, reader: CaldavReader, target: Target, depth: 0 | 1, asked: PropRequest, path: string) {
  const user = reader.ctx.user;
  switch (target.kind) {
    case 'root':
      return [await propertiesResponse(paths.root, rootProperties(reader, paths), asked)];
    case 'principal':
      // Only the caller's own principal is there to see.
      if (target.username !== (user?.username ?? null)) throw davErrors.notFound();
      return [await propertiesResponse(paths.principal(user), principalProperties(reader, paths, user), asked)];
    case 'home': {
      const responses = [await propertiesResponse(paths.home, homeProperties(reader, paths), asked)];
      if (depth === 1) {
        for (const info of await reader.calendars()) {
          responses.push(await propertiesResponse(paths.collection(info.collection), calendarProperties(reader, paths, info), asked));
        }
      }
      return responses;
    }
    case 'collection': {
      const info = await reader.calendar(target.collection);
      const responses = [await propertiesResponse(paths.collection(info.collection), calendarProperties(reader, paths, info), asked)];
      if (depth === 1)
        responses.push(...(await eventResponses(paths, reader, target.collection, await reader.members(target.collection), asked)));
      return responses;
    }
    case 'resource': {
      const shown = await reader.representation(await reader.resourceId(target.collection, target.name));
      if (shown === undefined) throw davErrors.notFound();
      return [await propertiesResponse(path, eventProperties(shown), asked)];
    }
  }
}

/**
 * The most events one answer holds: each is rendered and kept until the answer is sent, and SQLite binds at most
 * 32,766 values to a statement (lists grow to the next power of two, 16,384 here). Beyond it the answer is refused
 * with the precondition clients know from truncated syncs (RFC 6578 §3.6), rather than failing.
 */
const MAX_EVENTS_PER_ANSWER = 16_000;

async function eventResponses(paths: DavPaths, reader: CaldavReader, collection: Collection, ids: readonly number[], asked: PropRequest) {
  if (ids.length > MAX_EVENTS_PER_ANSWER) throw davErrors.tooManyMatches(ids.length, MAX_EVENTS_PER_ANSWER);
  const represented = await reader.representations(ids);
  const responses: DavResponse[] = [];
  for (const id of ids) {
    const shown = represented.get(id);
    const path = paths.resource(collection, id);
    responses.push(shown === undefined ? { href: path, status: 404 } : await propertiesResponse(path, eventProperties(shown), asked));
  }
  return responses;
}

async function report(options: CaldavRoutesOptions, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { paths } = options;
  const asked = readReport(request.body);
  const target = targetOf(paths, request);
  if (target.kind !== 'collection' && !(target.kind === 'resource' && asked.kind === 'multiget')) {
    throw davErrors.unsupportedReport(`${asked.kind === 'sync' ? 'sync-collection' : `calendar-${asked.kind}`} on anything but a calendar`);
  }
  const reader = readerOf(options, request);
  const { collection } = target;
  switch (asked.kind) {
    case 'multiget': {
      const targets = asked.hrefs.map((href) => paths.parse(href));
      const named = targets.flatMap((found) =>
        found?.kind === 'resource' && sameCollection(paths, found.collection, collection) ? [found.name] : [],
      );
      const ids = await reader.resourceIds(collection, named);
      const represented = await reader.representations([...ids.values()]);
      const responses: DavResponse[] = [];
      for (const [index, href] of asked.hrefs.entries()) {
        const found = targets[index];
        const id = found?.kind === 'resource' && sameCollection(paths, found.collection, collection) ? ids.get(found.name) : undefined;
        const shown = id === undefined ? undefined : represented.get(id);
        responses.push(shown === undefined ? { href, status: 404 } : await propertiesResponse(href, eventProperties(shown), asked.props));
      }
      return sendMultistatus(reply, responses);
    }
    case 'query': {
      await reader.calendar(collection);
      const among = asked.uid === undefined ? undefined : [...(await reader.resourceIds(collection, [asked.uid])).values()];
      const ids = asked.component === undefined || asked.component === 'VEVENT' ? await reader.members(collection, asked.range, among) : [];
      return sendMultistatus(reply, await eventResponses(paths, reader, collection, ids, asked.props));
    }
    case 'sync': {
      const { changed, gone, token } = await reader.changesSince(collection, asked.token);
      const responses = await eventResponses(paths, reader, collection, changed, asked.props);
      for (const id of gone) responses.push({ href: paths.resource(collection, id), status: 404 });
      return sendMultistatus(reply, responses, token);
    }
  }
}

const sameCollection = (paths: DavPaths, a: Collection, b: Collection) => paths.collection(a) === paths.collection(b);

const headerOf = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** A write names an event of a calendar; anything else is no resource a client may write. */
function writeTargetOf(paths: DavPaths, request: FastifyRequest) {
  const target = paths.parse(request.url);
  if (target?.kind === 'resource') return target;
  if (target === undefined) {
    const parent = paths.parse((request.url.split('?')[0] ?? '').replace(/[^/]*\/?$/, ''));
    if (request.method === 'PUT' && parent?.kind !== 'collection') throw davErrors.noParent();
    throw davErrors.notFound();
  }
  throw new AppError(
    405,
    'caldav',
    `${request.method} writes an event: {uid}.ics in a calendar.`,
    {},
    { allow: 'OPTIONS, PROPFIND, REPORT' },
  );
}

/** RFC 4791 §5.3.2: 201 for a new event, 204 for a replaced one, with the ETag of what is stored now. */
async function putResource(options: CaldavRoutesOptions, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const target = writeTargetOf(options.paths, request);
  const writer = options.service.writerFor(readerOf(options, request));
  const { created, shown } = await writer.put(target.collection, target.name, {
    contentType: headerOf(request, 'content-type'),
    body: typeof request.body === 'string' ? request.body : '',
    ifMatch: headerOf(request, 'if-match'),
    ifNoneMatch: headerOf(request, 'if-none-match'),
  });
  if (shown !== undefined) void reply.header('etag', shown.etag);
  await reply.code(created ? 201 : 204).send();
}

async function deleteResource(options: CaldavRoutesOptions, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const target = writeTargetOf(options.paths, request);
  await options.service.writerFor(readerOf(options, request)).delete(target.collection, target.name, headerOf(request, 'if-match'));
  await reply.code(204).send();
}

async function getResource(options: CaldavRoutesOptions, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const target = targetOf(options.paths, request);
  const reader = readerOf(options, request);
  if (target.kind === 'collection') await reader.calendar(target.collection);
  if (target.kind !== 'resource') {
    throw new AppError(
      405,
      'caldav',
      'Only events are read with GET here: list the collections with PROPFIND.',
      {},
      { allow: 'OPTIONS, PROPFIND, REPORT' },
    );
  }
  const shown = await reader.representation(await reader.resourceId(target.collection, target.name));
  if (shown === undefined) throw davErrors.notFound();
  await reply.header('etag', shown.etag).type('text/calendar; charset=utf-8').send(shown.ics);
}
