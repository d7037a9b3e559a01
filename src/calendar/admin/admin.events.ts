import Type, { type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { classifyError } from '../../platform/http/classify-error.ts';
import { requestContext } from '../common/context.ts';
import type { EventResponse } from '../events/events.schemas.ts';
import { termsOf } from '../terms/terms.mapper.ts';
import { can } from '../calendar.capabilities.ts';
import type { AdminContext } from './admin.context.ts';
import { plainText } from '../pages/pages.present.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { mayAct, mayEdit } from './admin.forms.ts';

const PER_PAGE = 20;
const CHOICES_MAX = 100;
/** Without a date range the list shows every date, drafts of long ago and far ahead included. */
export const ANY_START = '1900-01-01';
export const ANY_END = '2999-12-31 23:59:59';
export const EVENT_STATUSES = ['any', 'publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;

const DateText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
export const EventsListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  from: Type.Optional(DateText),
  to: Type.Optional(DateText),
  status: Type.Optional(Type.Union(EVENT_STATUSES.map((status) => Type.Literal(status)))),
  category: Type.Optional(Type.Integer({ minimum: 1 })),
  venue: Type.Optional(Type.Integer({ minimum: 1 })),
  author: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
  // What the last bulk action did, to say so.
  done: Type.Optional(Type.Integer({ minimum: 0, maximum: PER_PAGE })),
  failed: Type.Optional(Type.Integer({ minimum: 0, maximum: PER_PAGE })),
});
type EventsListQuery = Static<typeof EventsListQuery>;

export const BULK_ACTIONS = ['publish', 'trash', 'restore'] as const;
/** What the trash offers, and what every other view does. */
const actionsFor = (status: string | undefined) => (status === 'trash' ? (['restore'] as const) : (['publish', 'trash'] as const));
const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
export const BulkBody = Type.Object({
  csrf: Type.String({ maxLength: 200 }),
  action: Type.Union(BULK_ACTIONS.map((action) => Type.Literal(action))),
  ids: Type.Union([Id, Type.Array(Id, { minItems: 1, maxItems: PER_PAGE })]),
});

interface Row {
  readonly id: number;
  readonly title: string;
  readonly url: string;
  readonly dates: string;
  readonly venue: string;
  readonly status: string;
  readonly author: string;
  readonly repeats: boolean;
  /** Whether the user may open its form (an Edit link) and tick it for the view's bulk actions. */
  readonly editable: boolean;
  readonly selectable: boolean;
  /** Whether its public page is anyone's to see: its title links there even when it is not the user's to edit. */
  readonly published: boolean;
}

function rowOf(event: EventResponse, authors: ReadonlyMap<string, string>, user: AuthUser | null, inTrash: boolean): Row {
  const editable = mayEdit(user, event);
  const venue = Array.isArray(event.venue) ? '' : plainText((event.venue as { venue?: unknown }).venue);
  const day = (local: string) => (event.all_day === true ? local.slice(0, 10) : local.slice(0, 16));
  return {
    id: event.id,
    // The API's titles are HTML (an `&` as `&amp;`); the template escapes what it shows.
    title: plainText(event.title),
    url: event.url,
    dates: `${day(event.start_date)} – ${day(event.end_date)} ${event.timezone_abbr}`,
    venue,
    status: event.status,
    author: authors.get(event.author) ?? event.author,
    repeats: event.recurrence !== undefined,
    editable,
    // The trash's one action is a restore: an update.
    selectable: inTrash ? editable : mayAct(user, event),
    published: event.status === 'publish',
  };
}

/** The events list: the API's list as the user may see it (drafts for those who may), filtered and paged. */
export function eventsListPage(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: EventsListQuery }>, reply: FastifyReply) => {
    const query = request.query;
    const caller = requestContext(request, context.services.deps);
    const { events, categories, venues } = context.services;
    const page = query.page ?? 1;
    const [list, categoryList, venueList, users] = await Promise.all([
      events.listEvents(
        {
          page,
          per_page: PER_PAGE,
          status: [query.status ?? 'any'],
          start_date: query.from ?? ANY_START,
          end_date: query.to === undefined ? ANY_END : `${query.to} 23:59:59`,
          ...(query.category === undefined ? {} : { categories: [String(query.category)] }),
          ...(query.venue === undefined ? {} : { venue: [String(query.venue)] }),
          ...(query.search === undefined ? {} : { search: query.search }),
        },
        caller,
        undefined,
        { order: query.order ?? 'asc', author: query.author },
      ),
      categories.list({ page: 1, per_page: CHOICES_MAX, parent: undefined, orderby: 'name', order: 'asc' }, caller),
      venues.list({ page: 1, per_page: CHOICES_MAX }, caller, ''),
      context.users.list(),
    ]);
    const authors = new Map(users.map((user) => [String(user.id), user.display_name]));
    const pageOf = (target: number) => {
      const params = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
      params.set('page', String(target));
      for (const name of ['lang', 'done', 'failed']) params.delete(name);
      return `${context.config.basePath}/admin/events/?${params.toString()}`;
    };
    const admin = context.page(request);
    return context.views.send(
      reply,
      context.views.render(admin, admin.t.events, 'events', {
        query,
        statuses: EVENT_STATUSES,
        actions: actionsFor(query.status),
        // Whose events to show is a choice for those who see everyone's; the others' lists hold their own and published ones.
        authors: can(caller.user?.role ?? null, 'edit_others') ? users.map((user) => ({ id: user.id, name: user.display_name })) : [],
        categories: termsOf(categoryList.list, 'categories').map((term) => ({ id: term.id, name: term.name })),
        venues: venueList.items.map((item) => ({ id: Number(item.id), name: String(item.venue ?? item.title ?? '') })),
        rows: list.events.map((event) => rowOf(event, authors, caller.user, query.status === 'trash')),
        total: list.total,
        previous: page > 1 ? pageOf(page - 1) : undefined,
        next: page < list.total_pages ? pageOf(page + 1) : undefined,
        page,
        pages: list.total_pages,
      }),
    );
  };
}

/**
 * A bulk action on the selected events, each through the API's own write as the user (publish and restore as
 * an update of the status, trash as a delete): what the user may not do to one is left as it is and counted.
 */
export function eventsBulkAction(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: Static<typeof BulkBody> }>, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    const { events } = context.services;
    const { action } = request.body;
    const ids = [request.body.ids].flat();
    let done = 0;
    for (const id of new Set(ids)) {
      try {
        if (action === 'trash') await events.deleteEvent({ id }, {}, caller);
        // A restored event comes back as a draft, as WordPress restores a post.
        else await events.updateEvent({ id }, { status: action === 'restore' ? 'draft' : 'publish' }, caller);
        done += 1;
      } catch (error) {
        // A refusal (not allowed, missing, already in the trash) leaves that event as it is; anything else is a failure.
        if (classifyError(error).status >= 500) throw error;
      }
    }
    const failed = new Set(ids).size - done;
    return reply.redirect(`${context.config.basePath}/admin/events/?done=${done}&failed=${failed}`, 303);
  };
}
