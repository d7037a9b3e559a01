import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
import { AppError } from '../../platform/errors.ts';
import type { Answer } from '../../platform/http/cached-answers.ts';
import { permalinks } from '../common/wire.ts';
import { parseDay } from './pages.dates.ts';
import { eventModel, findOccurrence } from './pages.event.ts';
import { addressOf, mapLink, plainText, safeHtml } from './pages.present.ts';
import { termsOf } from '../terms/terms.mapper.ts';
import { pageImageOf } from './pages.images.ts';
import { pageNotFound } from './pages.errors.ts';
import type { PageRequest, PagesService } from './pages.service.ts';
import {
  isSlugText,
  ItemQuerySchema,
  OccurrenceParamsSchema,
  PasswordBodySchema,
  SlugParamsSchema,
  type PasswordBody,
} from './pages.schemas.ts';
import type { PageRoutesOptions } from './pages.routes.ts';
import type { PageViews } from './pages.views.ts';

/** What an anonymous reader may not see is absent: the API's 403s and unknown slugs are the pages' 404. */
const HIDDEN = new Set(['rest_invalid_param', 'rest-event-not-found', 'event-not-accessible', 'event-no-longer-available']);

function asNotFound(error: unknown): unknown {
  if (error instanceof AppError && (HIDDEN.has(error.code) || /-not-accessible$/.test(error.code))) return pageNotFound();
  return error;
}

/** A protected event, venue or organizer that the read did not unlock (`event-password-protected`, `venue-…`, `organizer-…`). */
function isLocked(error: unknown): boolean {
  return error instanceof AppError && /-password-protected$/.test(error.code);
}

/** A page and its status: a password form is a 200 when asked for, a 403 after a wrong password. */
interface ItemAnswer {
  readonly answer: Answer;
  readonly status: number;
}

const config = { access: 'public' as const };
const slugSchema = { hide: true, params: SlugParamsSchema, querystring: ItemQuerySchema };
const slugPasswordSchema = { ...slugSchema, body: PasswordBodySchema };
const occurrenceSchema = { hide: true, params: OccurrenceParamsSchema, querystring: ItemQuerySchema };
const occurrencePasswordSchema = { ...occurrenceSchema, body: PasswordBodySchema };
const categorySchema = { hide: true, querystring: ItemQuerySchema };

/** Every permalink the API gives is a page: events (and occurrences), venues, organizers, categories and tags. */
export async function pagesItemRoutes(app: FastifyInstance, options: PageRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/event/:slug', { config, schema: slugSchema, handler: getEventPage(options) });
  typed.post('/event/:slug', { config, schema: slugPasswordSchema, handler: postEventPassword(options) });
  typed.get('/event/:slug/:day', { config, schema: occurrenceSchema, handler: getOccurrencePage(options) });
  typed.post('/event/:slug/:day', { config, schema: occurrencePasswordSchema, handler: postOccurrencePassword(options) });
  for (const kind of ['venue', 'organizer'] as const) {
    typed.get(`/${kind}/:slug`, { config, schema: slugSchema, handler: getLinkedPostPage(options, kind) });
    typed.post(`/${kind}/:slug`, { config, schema: slugPasswordSchema, handler: postLinkedPostPassword(options, kind) });
  }
  typed.get('/events/category/*', { config, schema: categorySchema, handler: categoryPage(options) });
  typed.get('/tag/:slug', { config, schema: slugSchema, handler: tagPage(options) });
}

/**
 * The page of a post that may be password-protected, read with the `password` sent (if any): `show` renders what
 * `read` gives, or while the post is locked its password form, which posts to `action` (the page itself).
 */
async function protectedPage<Item>(
  views: PageViews,
  page: PageRequest,
  head: { path: string; action: string; heading: string },
  password: string | undefined,
  read: (unlock: { password?: string }) => Promise<Item>,
  show: (item: Item) => Promise<Answer>,
): Promise<ItemAnswer> {
  let item: Item;
  try {
    item = await read(password === undefined ? {} : { password });
  } catch (error) {
    if (!isLocked(error)) throw asNotFound(error);
    const model = { heading: head.heading, action: head.action, wrong: password !== undefined };
    const answer = views.render(page, { title: head.heading, path: head.path, noindex: true }, 'password', model);
    return { answer, status: password === undefined ? 200 : 403 };
  }
  return { answer: await show(item), status: 200 };
}

async function getProtected(pages: PagesService, request: FastifyRequest, reply: FastifyReply, produce: () => Promise<ItemAnswer>) {
  return pages.send(request, reply, async () => (await produce()).answer);
}

// An answer to a password is the reader's own: never cached (and, a POST, never stored by an HTTP cache either).
async function postPassword(views: PageViews, reply: FastifyReply, produce: () => Promise<ItemAnswer>) {
  const { answer, status } = await produce();
  return views.send(reply, answer, status);
}

/** The event page, or its password form. */
async function eventPage(
  { pages, views }: PageRoutesOptions,
  request: FastifyRequest,
  slug: string,
  day: string | undefined,
  body?: PasswordBody,
): Promise<ItemAnswer> {
  if (!isSlugText(slug)) throw pageNotFound();
  const page = pages.pageRequest(request, request.query as object, false);
  const path =
    new URL(permalinks.event(page.links.baseUrl, slug)).pathname.slice(page.links.basePath.length) + (day === undefined ? '' : `${day}/`);
  return protectedPage(
    views,
    page,
    { path, action: page.links.to(path), heading: page.t.protected },
    body?.password,
    async (unlock) => {
      const ref = day === undefined ? { slug } : { id: await findOccurrence(pages, page, slug, day, unlock.password) };
      return (await pages.services.events.getEvent(ref, unlock, page.caller)).item;
    },
    async (event) => {
      const { model, head } = await eventModel(pages, page, event, path);
      return views.render(page, head, 'event', model);
    },
  );
}

function occurrenceDay(text: string): string {
  const day = parseDay(text);
  if (day === undefined) throw pageNotFound();
  return day;
}

function getEventPage(options: PageRoutesOptions): Handler<typeof slugSchema> {
  return async (request, reply) =>
    getProtected(options.pages, request, reply, () => eventPage(options, request, request.params.slug, undefined));
}

function postEventPassword(options: PageRoutesOptions): Handler<typeof slugPasswordSchema> {
  return async (request, reply) =>
    postPassword(options.views, reply, () => eventPage(options, request, request.params.slug, undefined, request.body));
}

function getOccurrencePage(options: PageRoutesOptions): Handler<typeof occurrenceSchema> {
  return async (request, reply) => {
    // An unknown day is a 404 before the read cache is consulted.
    const day = occurrenceDay(request.params.day);
    return getProtected(options.pages, request, reply, () => eventPage(options, request, request.params.slug, day));
  };
}

function postOccurrencePassword(options: PageRoutesOptions): Handler<typeof occurrencePasswordSchema> {
  return async (request, reply) =>
    postPassword(options.views, reply, () =>
      eventPage(options, request, request.params.slug, occurrenceDay(request.params.day), request.body),
    );
}

/** A page that lists the upcoming events of one venue, organizer, category or tag. */
async function archive(
  { pages, views }: PageRoutesOptions,
  page: PageRequest,
  path: string,
  heading: string,
  details: object,
  filter: object,
): Promise<Answer> {
  const list = await pages.eventList(page, filter);
  const pageLink = (number: number) => page.links.to(path, number > 1 ? [['page', String(number)]] : []);
  const model = {
    heading,
    details,
    events: list.cards,
    subscribe: pages.subscribe(page, undefined, filter, heading),
    pager: {
      previous: list.page > 1 ? { href: pageLink(list.page - 1), label: page.t.previousPage } : undefined,
      next: list.page < list.pages ? { href: pageLink(list.page + 1), label: page.t.nextPage } : undefined,
    },
  };
  return views.render(page, { title: heading, path }, 'archive', model);
}

type LinkedPostKind = 'venue' | 'organizer';

/** A venue or organizer page with its upcoming events, or its password form (the form keeps the page of events asked for). */
async function linkedPostPage(
  options: PageRoutesOptions,
  request: FastifyRequest,
  kind: LinkedPostKind,
  slug: string,
  body?: PasswordBody,
): Promise<ItemAnswer> {
  if (!isSlugText(slug)) throw pageNotFound();
  const { pages, views } = options;
  const page = pages.pageRequest(request, request.query as object, false);
  const path = new URL(permalinks[kind](page.links.baseUrl, slug)).pathname.slice(page.links.basePath.length);
  const number = page.query.page ?? 1;
  const action = page.links.to(path, number > 1 ? [['page', String(number)]] : []);
  const service = kind === 'venue' ? pages.services.venues : pages.services.organizers;
  return protectedPage(
    views,
    page,
    { path, action, heading: page.t.protectedPost },
    body?.password,
    async (unlock) => (await service.get({ slug }, unlock, page.caller, 'refuse')).item,
    async (item) => {
      const details =
        kind === 'venue'
          ? { kind, address: addressOf(item), map: mapLink(item), phone: plainText(item.phone), website: plainText(item.website) }
          : { kind, email: plainText(item.email), phone: plainText(item.phone), website: plainText(item.website) };
      const description = safeHtml(item.description);
      const own = `/${kind}/${String(item.slug)}/`;
      const image = await pageImageOf(pages.services.media, item.image);
      return archive(options, page, own, plainText(item[kind]), { ...details, description, image }, { [kind]: String(item.id) });
    },
  );
}

function getLinkedPostPage(options: PageRoutesOptions, kind: LinkedPostKind): Handler<typeof slugSchema> {
  return async (request, reply) =>
    getProtected(options.pages, request, reply, () => linkedPostPage(options, request, kind, request.params.slug));
}

function postLinkedPostPassword(options: PageRoutesOptions, kind: LinkedPostKind): Handler<typeof slugPasswordSchema> {
  return async (request, reply) =>
    postPassword(options.views, reply, () => linkedPostPage(options, request, kind, request.params.slug, request.body));
}

function categoryPage(options: PageRoutesOptions): Handler<typeof categorySchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const page = pages.pageRequest(request, request.query, false);
      const trail = ((request.params as { '*': string })['*'] ?? '').split('/').filter((part) => part !== '');
      const slug = trail[trail.length - 1];
      if (slug === undefined || !trail.every(isSlugText)) throw pageNotFound();
      const { list } = await pages.services.categories.list(
        { slug, hide_empty: false, page: 1, per_page: 1, parent: undefined },
        page.caller,
      );
      const term = termsOf(list, 'categories')[0];
      const path = `/events/category/${trail.join('/')}/`;
      // A category is found at its full path only: its parents' slugs lead to it.
      if (term === undefined || page.links.of(term.url).split('?')[0] !== `${page.links.basePath}${path}`) throw pageNotFound();
      return archive(
        options,
        page,
        path,
        plainText(term.name),
        { kind: 'category', description: safeHtml(term.description) },
        { categories: String(term.id) },
      );
    });
}

function tagPage(options: PageRoutesOptions): Handler<typeof slugSchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      if (!isSlugText(request.params.slug)) throw pageNotFound();
      const page = pages.pageRequest(request, request.query, false);
      const { list } = await pages.services.tags.list(
        { slug: request.params.slug, hide_empty: false, page: 1, per_page: 1, parent: undefined },
        page.caller,
      );
      const term = termsOf(list, 'tags')[0];
      if (term === undefined) throw pageNotFound();
      const path = `/tag/${term.slug}/`;
      return archive(
        options,
        page,
        path,
        plainText(term.name),
        { kind: 'tag', description: safeHtml(term.description) },
        { tags: String(term.id) },
      );
    });
}
