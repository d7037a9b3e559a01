import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Answer } from '../../platform/http/cached-answers.ts';
import type { Handler } from '../../platform/http/route-handler.ts';
import {
  addDays,
  addMonths,
  formatDay,
  formatMonth,
  formatWeekdayName,
  formatWeekdayShort,
  monthWeeks,
  parseDay,
  parseMonth,
  weekStart,
} from './pages.dates.ts';
import { badPageArgument } from './pages.errors.ts';
import { placeBars } from './pages.bars.ts';
import type { DayEvents, PagesService, PageRequest } from './pages.service.ts';
import type { Language } from '../../config/config.ts';
import { DayParamsSchema, MonthParamsSchema, ViewQuerySchema } from './pages.schemas.ts';
import { EMBED_PATH, type PageViews } from './pages.views.ts';

/** Events a day shows in each view: a few in the month, more in the week, and on its own page all but a pathological day's. */
const MONTH_DAY_MAX = 4;
const WEEK_DAY_MAX = 10;
const DAY_PAGE_MAX = 500;

/** What the pages' handlers work with: the service they read through and the templates they render. */
export interface PageRoutesOptions {
  readonly pages: PagesService;
  readonly views: PageViews;
}

const config = { access: 'public' as const };
const viewSchema = { hide: true, querystring: ViewQuerySchema };
const monthSchema = { hide: true, params: MonthParamsSchema, querystring: ViewQuerySchema };
const daySchema = { hide: true, params: DayParamsSchema, querystring: ViewQuerySchema };

/** The calendar's views: month (the default), week, day and list, with navigation, search and filters. */
export async function pagesViewRoutes(app: FastifyInstance, options: PageRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/events', { config, schema: viewSchema, handler: thisMonthPage(options, renderMonth) });
  typed.get('/events/month/:month', { config, schema: monthSchema, handler: monthPage(options, renderMonth) });
  typed.get('/events/week/:day', { config, schema: daySchema, handler: weekPage(options) });
  typed.get('/events/today', { config, schema: viewSchema, handler: todayPage(options) });
  typed.get('/events/:day(^\\d{4}-\\d{2}-\\d{2}$)', { config, schema: daySchema, handler: dayPage(options) });
  typed.get('/events/list', { config, schema: viewSchema, handler: listPage(options) });
  typed.get(EMBED_PATH, { config, schema: viewSchema, handler: embedPage(options) });
  typed.get(`${EMBED_PATH}month`, { config, schema: viewSchema, handler: thisMonthPage(options, renderEmbedMonth) });
  typed.get(`${EMBED_PATH}month/:month`, { config, schema: monthSchema, handler: monthPage(options, renderEmbedMonth) });
}

/** The column headings of a grid whose rows are weeks like `week`. */
function weekdaysOf(week: readonly string[], language: Language) {
  return week.map((day) => ({ long: formatWeekdayName(day, language), short: formatWeekdayShort(day, language) }));
}

/** The cells of a grid's row of `week` (its days' dates): each day's events, placed as bars and chips (pages.bars.ts). */
function gridRow(page: PageRequest, week: readonly string[], days: Map<string, DayEvents>, inMonth: (day: string) => boolean) {
  const placed = placeBars(
    week.map((day) => days.get(day)!.events),
    week,
  );
  return week.map((day, index) => ({
    day,
    number: Number(day.slice(8)),
    label: formatDay(day, page.language.language, page.caller.settings.date_format),
    inMonth: inMonth(day),
    today: day === page.today,
    href: page.links.to(`/events/${day}/`),
    ...days.get(day)!,
    placed: placed[index]!,
  }));
}

/** A month's grid, its list of days with events and its pager, whose months are at `monthPath` (the view's or the embed's). */
async function monthOf(pages: PagesService, page: PageRequest, month: string, monthPath: (month: string) => string) {
  const { t, links, language } = page;
  const weeks = monthWeeks(month, page.caller.settings.start_of_week);
  const first = weeks[0]![0]!;
  const last = weeks[weeks.length - 1]![6]!;
  const days = await pages.eventsByDay(page, first, last, MONTH_DAY_MAX);
  const cells = weeks.map((week) => gridRow(page, week, days, (day) => day.startsWith(month)));
  return {
    heading: formatMonth(month, language.language),
    weekdays: weekdaysOf(weeks[0]!, language.language),
    weeks: cells,
    // On a phone the grid shrinks to day numbers and dots, and the days that have events are listed below it.
    agenda: cells.flat().filter((cell) => cell.events.length > 0),
    pager: {
      previous: { href: links.to(monthPath(addMonths(month, -1))), label: t.previousMonth },
      today: { href: links.to(monthPath(page.today.slice(0, 7))), label: t.today },
      next: { href: links.to(monthPath(addMonths(month, 1))), label: t.nextMonth },
    },
  };
}

const renderMonth: MonthRenderer = async ({ pages, views }, page, month, thisMonth) => {
  const path = thisMonth ? '/events/' : `/events/month/${month}/`;
  const [grid, filters] = await Promise.all([monthOf(pages, page, month, (shown) => `/events/month/${shown}/`), pages.filterChoices(page)]);
  const model = { ...grid, filters, subscribe: pages.subscribe(page, filters), action: page.links.to(path, [], false) };
  return views.render(page, { title: grid.heading, path, current: 'month' }, 'month', model);
};

/** Renders `month` as a page: the month view's (`thisMonth`: at `/events/`) or the embed's. */
type MonthRenderer = (options: PageRoutesOptions, page: PageRequest, month: string, thisMonth: boolean) => Promise<Answer>;

function thisMonthPage(options: PageRoutesOptions, render: MonthRenderer): Handler<typeof viewSchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const page = pages.pageRequest(request, request.query);
      return render(options, page, page.today.slice(0, 7), true);
    });
}

function monthPage(options: PageRoutesOptions, render: MonthRenderer): Handler<typeof monthSchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const asked = parseMonth(request.params.month);
      if (asked === undefined) throw badPageArgument('month');
      return render(options, pages.pageRequest(request, request.query), asked, false);
    });
}

function weekPage({ pages, views }: PageRoutesOptions): Handler<typeof daySchema> {
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const asked = parseDay(request.params.day);
      if (asked === undefined) throw badPageArgument('day');
      const page = pages.pageRequest(request, request.query);
      const { t, links, language } = page;
      const { start_of_week: firstDay, date_format: dateFormat } = page.caller.settings;
      const first = weekStart(asked, firstDay);
      const last = addDays(first, 6);
      const [days, filters] = await Promise.all([pages.eventsByDay(page, first, last, WEEK_DAY_MAX, true), pages.filterChoices(page)]);
      const heading = `${t.weekOf} ${formatDay(first, language.language, dateFormat)}`;
      const path = `/events/week/${first}/`;
      const week = [...days.keys()];
      const model = {
        heading,
        weekdays: weekdaysOf(week, language.language),
        // Seven columns on a wide screen, the list of days (the phone's agenda) on a narrow one.
        cells: gridRow(page, week, days, () => true),
        days: [...days].map(([day, shown]) => ({
          day,
          label: formatDay(day, language.language, dateFormat),
          today: day === page.today,
          href: links.to(`/events/${day}/`),
          ...shown,
        })),
        pager: {
          previous: { href: links.to(`/events/week/${addDays(first, -7)}/`), label: t.previousWeek },
          today: { href: links.to(`/events/week/${page.today}/`), label: t.today },
          next: { href: links.to(`/events/week/${addDays(first, 7)}/`), label: t.nextWeek },
        },
        filters,
        subscribe: pages.subscribe(page, filters),
        action: links.to(path, [], false),
      };
      return views.render(page, { title: heading, path, current: 'week' }, 'week', model);
    });
}

async function renderDay({ pages, views }: PageRoutesOptions, page: PageRequest, day: string, path: string): Promise<Answer> {
  const { t, links, language } = page;
  const [days, filters] = await Promise.all([pages.eventsByDay(page, day, day, DAY_PAGE_MAX, true), pages.filterChoices(page)]);
  const heading = formatDay(day, language.language, page.caller.settings.date_format);
  const { events, more } = days.get(day)!;
  const model = {
    heading,
    events,
    truncated: more > 0,
    pager: {
      previous: { href: links.to(`/events/${addDays(day, -1)}/`), label: t.previousDay },
      today: { href: links.to('/events/today/'), label: t.today },
      next: { href: links.to(`/events/${addDays(day, 1)}/`), label: t.nextDay },
    },
    filters,
    subscribe: pages.subscribe(page, filters),
    action: links.to(path, [], false),
  };
  return views.render(page, { title: heading, path, current: 'day' }, 'day', model);
}

function todayPage(options: PageRoutesOptions): Handler<typeof viewSchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const page = pages.pageRequest(request, request.query);
      return renderDay(options, page, page.today, '/events/today/');
    });
}

function dayPage(options: PageRoutesOptions): Handler<typeof daySchema> {
  const { pages } = options;
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const asked = parseDay(request.params.day);
      if (asked === undefined) throw badPageArgument('day');
      return renderDay(options, pages.pageRequest(request, request.query), asked, `/events/${asked}/`);
    });
}

/** A page of the events list (upcoming, or past with `past=1`) as the list view and the embed show it, its pager below `path`. */
async function listOf(pages: PagesService, page: PageRequest, path: string) {
  const { t, links } = page;
  const past = page.query.past === '1';
  const list = await pages.eventList(page);
  const pastPair: Array<readonly [string, string]> = past ? [['past', '1']] : [];
  const pageLink = (number: number) => links.to(path, [...pastPair, ...(number > 1 ? [['page', String(number)] as const] : [])]);
  return {
    heading: past ? t.past : t.upcoming,
    events: list.cards,
    pager: {
      previous: list.page > 1 ? { href: pageLink(list.page - 1), label: t.previousPage } : undefined,
      next: list.page < list.pages ? { href: pageLink(list.page + 1), label: t.nextPage } : undefined,
    },
    position: list.pages > 1 ? `${t.page} ${list.page} ${t.of} ${list.pages}` : '',
    past,
  };
}

function listPage({ pages, views }: PageRoutesOptions): Handler<typeof viewSchema> {
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const page = pages.pageRequest(request, request.query);
      const { t, links } = page;
      const [list, filters] = await Promise.all([listOf(pages, page, '/events/list/'), pages.filterChoices(page)]);
      const model = {
        ...list,
        toggle: { href: links.to('/events/list/', list.past ? [] : [['past', '1']]), label: list.past ? t.showUpcoming : t.showPast },
        filters,
        subscribe: pages.subscribe(page, filters),
        action: links.to('/events/list/', [], false),
      };
      const path = `/events/list/${list.past ? '?past=1' : ''}`;
      return views.render(page, { title: model.heading, path, current: 'list' }, 'list', model);
    });
}

/**
 * The list for an `<iframe>` on another site: the list view's events, filters (from the address) and pages, without the
 * site's header, form or footer; its events and the full calendar open in the top window, its pages in the frame.
 */
function embedPage({ pages, views }: PageRoutesOptions): Handler<typeof viewSchema> {
  return async (request, reply) =>
    pages.send(request, reply, async () => {
      const page = pages.pageRequest(request, request.query);
      const list = await listOf(pages, page, EMBED_PATH);
      const full = page.links.to('/events/list/', list.past ? [['past', '1']] : []);
      // Its canonical address is the list view's: search engines index the calendar, not its embeds.
      const path = `/events/list/${list.past ? '?past=1' : ''}`;
      return views.render(page, { title: list.heading, path, noindex: true }, 'embed', { ...list, full });
    });
}

/** A month for an `<iframe>`: the month view's grid without the site around it, its days and events opening in the top window. */
const renderEmbedMonth: MonthRenderer = async ({ pages, views }, page, month) => {
  const grid = await monthOf(pages, page, month, (shown) => `${EMBED_PATH}month/${shown}/`);
  const full = page.links.to(`/events/month/${month}/`);
  return views.render(page, { title: grid.heading, path: `/events/month/${month}/`, noindex: true }, 'embed-month', { ...grid, full });
};
