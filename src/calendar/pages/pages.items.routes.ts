import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { Answer } from '../../platform/http/cached-answers.ts';
import { permalinks } from '../common/wire.ts';
import { parseDay } from './pages.dates.ts';
import { eventModel, findOccurrence } from './pages.event.ts';
import { addressOf, mapLink, plainText, safeHtml } from './pages.present.ts';
import { pageNotFound, termsOf, type PageRequest, type PagesService } from './pages.service.ts';
import {
  isSlugText,
  ItemQuerySchema,
  OccurrenceParamsSchema,
  PasswordBodySchema,
  SlugParamsSchema,
  type PasswordBody,
} from './pages.schemas.ts';
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

/** Every permalink the API gives is a page: events (and occurrences), venues, organizers, categories and tags. */
export async function pagesItemRoutes(app: FastifyInstance, { pages, views }: { pages: PagesService; views: PageViews }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const config = { access: 'public' as const };
  const { events, venues, organizers, categories, tags } = pages.services;

  /**
   * The page of a post that may be password-protected, read with the `password` sent (if any): `show` renders what
   * `read` gives, or while the post is locked its password form, which posts to `action` (the page itself).
   */
  const protectedPage = async <Item>(
    page: PageRequest,
    head: { path: string; action: string; heading: string },
    password: string | undefined,
    read: (unlock: { password?: string }) => Promise<Item>,
    show: (item: Item) => Promise<Answer>,
  ): Promise<ItemAnswer> => {
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
  };
  const getProtected = async (request: FastifyRequest, reply: FastifyReply, produce: () => Promise<ItemAnswer>) =>
    pages.send(request, reply, async () => (await produce()).answer);
  // An answer to a password is the reader's own: never cached (and, a POST, never stored by an HTTP cache either).
  const postPassword = async (reply: FastifyReply, produce: () => Promise<ItemAnswer>) => {
    const { answer, status } = await produce();
    return views.send(reply, answer, status);
  };

  /** The event page, or its password form. */
  const eventPage = async (request: FastifyRequest, slug: string, day: string | undefined, body?: PasswordBody) => {
    if (!isSlugText(slug)) throw pageNotFound();
    const page = pages.pageRequest(request, request.query as object, false);
    const path =
      new URL(permalinks.event(page.links.baseUrl, slug)).pathname.slice(page.links.basePath.length) + (day === undefined ? '' : `${day}/`);
    return protectedPage(
      page,
      { path, action: page.links.to(path), heading: page.t.protected },
      body?.password,
      async (unlock) => {
        const ref = day === undefined ? { slug } : { id: await findOccurrence(pages, page, slug, day, unlock.password) };
        return (await events.getEvent(ref, unlock, page.caller)).item;
      },
      async (event) => {
        const { model, head } = await eventModel(pages, page, event, path);
        return views.render(page, head, 'event', model);
      },
    );
  };
  const getEvent = async (request: FastifyRequest, reply: FastifyReply, slug: string, day?: string) =>
    getProtected(request, reply, () => eventPage(request, slug, day));

  const eventSchema = { hide: true, params: SlugParamsSchema, querystring: ItemQuerySchema };
  const occurrenceSchema = { hide: true, params: OccurrenceParamsSchema, querystring: ItemQuerySchema };
  const occurrenceDay = (text: string) =>
    parseDay(text) ??
    (() => {
      throw pageNotFound();
    })();
  typed.get('/event/:slug', {
    config,
    schema: eventSchema,
    handler: async (request, reply) => getEvent(request, reply, request.params.slug),
  });
  typed.post('/event/:slug', {
    config,
    schema: { ...eventSchema, body: PasswordBodySchema },
    handler: async (request, reply) => postPassword(reply, () => eventPage(request, request.params.slug, undefined, request.body)),
  });
  typed.get('/event/:slug/:day', {
    config,
    schema: occurrenceSchema,
    handler: async (request, reply) => getEvent(request, reply, request.params.slug, occurrenceDay(request.params.day)),
  });
  typed.post('/event/:slug/:day', {
    config,
    schema: { ...occurrenceSchema, body: PasswordBodySchema },
    handler: async (request, reply) =>
      postPassword(reply, () => eventPage(request, request.params.slug, occurrenceDay(request.params.day), request.body)),
  });

  /** A page that lists the upcoming events of one venue, organizer, category or tag. */
  const archive = async (page: PageRequest, path: string, heading: string, details: object, filter: object) => {
    const list = await pages.eventList(page, filter);
    const pageLink = (number: number) => page.links.to(path, number > 1 ? [['page', String(number)]] : []);
    const model = {
      heading,
      details,
      events: list.cards,
      pager: {
        previous: list.page > 1 ? { href: pageLink(list.page - 1), label: page.t.previousPage } : undefined,
        next: list.page < list.pages ? { href: pageLink(list.page + 1), label: page.t.nextPage } : undefined,
      },
    };
    return views.render(page, { title: heading, path }, 'archive', model);
  };

  /** A venue or organizer page with its upcoming events, or its password form (the form keeps the page of events asked for). */
  const linkedPostPage = async (request: FastifyRequest, kind: 'venue' | 'organizer', slug: string, body?: PasswordBody) => {
    if (!isSlugText(slug)) throw pageNotFound();
    const page = pages.pageRequest(request, request.query as object, false);
    const path = new URL(permalinks[kind](page.links.baseUrl, slug)).pathname.slice(page.links.basePath.length);
    const number = page.query.page ?? 1;
    const action = page.links.to(path, number > 1 ? [['page', String(number)]] : []);
    const service = kind === 'venue' ? venues : organizers;
    return protectedPage(
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
        return archive(page, own, plainText(item[kind]), { ...details, description }, { [kind]: String(item.id) });
      },
    );
  };
  for (const kind of ['venue', 'organizer'] as const) {
    const schema = { hide: true, params: SlugParamsSchema, querystring: ItemQuerySchema };
    typed.get(`/${kind}/:slug`, {
      config,
      schema,
      handler: async (request, reply) => getProtected(request, reply, () => linkedPostPage(request, kind, request.params.slug)),
    });
    typed.post(`/${kind}/:slug`, {
      config,
      schema: { ...schema, body: PasswordBodySchema },
      handler: async (request, reply) => postPassword(reply, () => linkedPostPage(request, kind, request.params.slug, request.body)),
    });
  }

  typed.get('/events/category/*', {
    config,
    schema: { hide: true, querystring: ItemQuerySchema },
    handler: async (request, reply) =>
      pages.send(request, reply, async () => {
        const page = pages.pageRequest(request, request.query, false);
        const trail = ((request.params as { '*': string })['*'] ?? '').split('/').filter((part) => part !== '');
        const slug = trail[trail.length - 1];
        if (slug === undefined || !trail.every(isSlugText)) throw pageNotFound();
        const { list } = await categories.list({ slug, hide_empty: false, page: 1, per_page: 1, parent: undefined }, page.caller);
        const term = termsOf(list, 'categories')[0];
        const path = `/events/category/${trail.join('/')}/`;
        // A category is found at its full path only: its parents' slugs lead to it.
        if (term === undefined || page.links.of(term.url).split('?')[0] !== `${page.links.basePath}${path}`) throw pageNotFound();
        return archive(
          page,
          path,
          plainText(term.name),
          { kind: 'category', description: safeHtml(term.description) },
          { categories: String(term.id) },
        );
      }),
  });

  typed.get('/tag/:slug', {
    config,
    schema: { hide: true, params: SlugParamsSchema, querystring: ItemQuerySchema },
    handler: async (request, reply) =>
      pages.send(request, reply, async () => {
        if (!isSlugText(request.params.slug)) throw pageNotFound();
        const page = pages.pageRequest(request, request.query, false);
        const { list } = await tags.list(
          { slug: request.params.slug, hide_empty: false, page: 1, per_page: 1, parent: undefined },
          page.caller,
        );
        const term = termsOf(list, 'tags')[0];
        if (term === undefined) throw pageNotFound();
        const path = `/tag/${term.slug}/`;
        return archive(
          page,
          path,
          plainText(term.name),
          { kind: 'tag', description: safeHtml(term.description) },
          { tags: String(term.id) },
        );
      }),
  });
}
