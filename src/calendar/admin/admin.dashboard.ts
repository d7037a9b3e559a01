import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventResponse } from '../events/events.schemas.ts';
import { requestContext } from '../common/context.ts';
import type { AdminContext } from './admin.context.ts';
import { plainText } from '../pages/pages.present.ts';
import { ANY_END, ANY_START } from './admin.events.ts';

const PANEL_SIZE = 5;
const RECENT_DAYS = 14;

/** One line of a dashboard panel. */
export interface EventLine {
  readonly id: number;
  readonly title: string;
  readonly start: string;
  readonly status: string;
  readonly url: string;
}

export const eventLine = (event: EventResponse): EventLine => ({
  id: event.id,
  title: plainText(event.title),
  start: event.start_date.slice(0, 16),
  status: event.status,
  url: event.url,
});

/** The dashboard: what comes next, what waits for review, what changed lately — each as the user may see it. */
export function dashboardPage(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    const events = context.services.events;
    const since = new Date(Date.now() - RECENT_DAYS * 86_400_000).toISOString().slice(0, 19);
    const [upcoming, review, recent] = await Promise.all([
      events.listEvents({ per_page: PANEL_SIZE, status: ['any'] }, caller),
      events.listEvents({ per_page: PANEL_SIZE, status: ['draft', 'pending'], start_date: ANY_START, end_date: ANY_END }, caller),
      events.listEvents(
        { per_page: PANEL_SIZE, status: ['any'], start_date: ANY_START, end_date: ANY_END, modified_after: `${since}Z` },
        caller,
      ),
    ]);
    const page = context.page(request);
    const panels = [
      { heading: page.t.upcoming, lines: upcoming.events.map(eventLine) },
      { heading: page.t.toReview, lines: review.events.map(eventLine) },
      { heading: page.t.recent, lines: recent.events.map(eventLine) },
    ];
    return context.views.send(reply, context.views.render(page, page.t.dashboard, 'dashboard', { panels }));
  };
}
