import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { EventResponse } from '../events/events.schemas.ts';
import { permalinks } from '../shared/wire.ts';
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

/** Every permalink the API gives is a page: events (and occurrences), venues, organizers, categories and tags. */
export async function pagesItemRoutes(app: FastifyInstance, { pages, views }: { pages: PagesService; views: PageViews }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const config = { access: 'public' as const };
  const { events, venues, organizers, categories, tags } = pages.services;

  /** The event page, or its password form (a 403 when the password sent is wrong). */
  const eventPage = async (request: FastifyRequest, slug: string, day: string | undefined, body?: PasswordBody) => {
    if (!isSlugText(slug)) throw pageNotFound();
    const page = pages.pageRequest(request, request.query as object, false);
    const path =
      new URL(permalinks.event(page.links.baseUrl, slug)).pathname.slice(page.links.basePath.length) + (day === undefined ? '' : `${day}/`);
    const password = body?.password;
    let event: EventResponse;
    try {
      const ref = day === undefined ? { slug } : { id: await findOccurrence(pages, page, slug, day, password) };
      event = (await events.getEvent(ref, password === undefined ? {} : { password }, page.caller)).item;
    } catch (error) {
      if (error instanceof AppError && error.code === 'event-password-protected') {
        const model = { heading: page.t.protected, action: page.links.to(path), wrong: password !== undefined };
        const answer = views.render(page, { title: page.t.protected, path, noindex: true }, 'password', model);
        return { answer, status: password === undefined ? 200 : 403 };
      }
      throw asNotFound(error);
    }
    const { model, head } = await eventModel(pages, page, event, path);
    return { answer: views.render(page, head, 'event', model), status: 200 };
  };
  const getEvent = async (request: FastifyRequest, reply: FastifyReply, slug: string, day?: string) =>
    pages.remember(request, reply, async () => (await eventPage(request, slug, day)).answer);
  // An answer to a password is the reader's own: never remembered, never kept by a cache.
  const postPassword = async (request: FastifyRequest, reply: FastifyReply, body: PasswordBody, slug: string, day?: string) => {
    const { answer, status } = await eventPage(request, slug, day, body);
    return views.send(reply.header('cache-control', 'no-store'), answer, status);
  };

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
    handler: async (request, reply) => postPassword(request, reply, request.body, request.params.slug),
  });
  typed.get('/event/:slug/:day', {
    config,
    schema: occurrenceSchema,
    handler: async (request, reply) => getEvent(request, reply, request.params.slug, occurrenceDay(request.params.day)),
  });
  typed.post('/event/:slug/:day', {
    config,
    schema: { ...occurrenceSchema, body: PasswordBodySchema },
    handler: async (request, reply) => postPassword(request, reply, request.body, request.params.slug, occurrenceDay(request.params.day)),
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

  for (const [kind, service, field] of [
    ['venue', venues, 'venue'],
    ['organizer', organizers, 'organizer'],
  ] as const) {
    typed.get(`/${kind}/:slug`, {
      config,
      schema: { hide: true, params: SlugParamsSchema, querystring: ItemQuerySchema },
      handler: async (request, reply) =>
        pages.remember(request, reply, async () => {
          if (!isSlugText(request.params.slug)) throw pageNotFound();
          const page = pages.pageRequest(request, request.query, false);
          const item = await service.get({ slug: request.params.slug }, {}, page.caller).then(
            ({ item }) => item,
            (error: unknown) => {
              throw asNotFound(error);
            },
          );
          const path = `/${kind}/${String(item.slug)}/`;
          const details =
            kind === 'venue'
              ? { kind, address: addressOf(item), map: mapLink(item), phone: plainText(item.phone), website: plainText(item.website) }
              : { kind, email: plainText(item.email), phone: plainText(item.phone), website: plainText(item.website) };
          const description = safeHtml(item.description);
          return archive(page, path, plainText(item[field]), { ...details, description }, { [kind]: String(item.id) });
        }),
    });
  }

  typed.get('/events/category/*', {
    config,
    schema: { hide: true, querystring: ItemQuerySchema },
    handler: async (request, reply) =>
      pages.remember(request, reply, async () => {
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
      pages.remember(request, reply, async () => {
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
