import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../common/context.ts';
import { eventModel } from '../pages/pages.event.ts';
import { PagesService } from '../pages/pages.service.ts';
import { PageViews } from '../pages/pages.views.ts';
import type { AdminContext } from './admin.context.ts';
import { editable } from './admin.editor.ts';
import type { EditorParams } from './admin.editor.form.ts';

/**
 * An event's public page as it will look, drafts included, for those who may edit it: the public pages' own
 * model and template, read as the signed-in user rather than as the anonymous reader the public pages serve.
 */
export function previewEvent(context: AdminContext) {
  const pages = new PagesService(context.services, context.config);
  const views = new PageViews();
  return async (request: FastifyRequest<{ Params: Static<typeof EditorParams> }>, reply: FastifyReply) => {
    const caller = requestContext(request, context.services.deps);
    await editable(context, request.params.id, caller);
    const anonymous = pages.pageRequest(request, {}, false);
    const page = { ...anonymous, caller: { ...anonymous.caller, user: caller.user } };
    const event = (await context.services.events.getEvent({ id: request.params.id }, {}, page.caller)).item;
    const path = new URL(event.url).pathname.slice(page.links.basePath.length);
    const { model, head } = await eventModel(pages, page, event, path);
    const answer = views.render(page, { ...head, noindex: true }, 'event', model);
    return reply.type(answer.type).send(answer.payload);
  };
}
