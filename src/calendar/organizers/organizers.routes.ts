import { linkedPostRoutes } from '../linked-posts/linked-posts.routes.ts';
import { organizerKind } from './organizers.kind.ts';
import { CreateOrganizerBodySchema, OrganizerSchema, UpdateOrganizerBodySchema } from './organizers.schemas.ts';

/** `/organizers…` routes (docs/calendar-venues-organizers.md). */
export const organizersRoutes = linkedPostRoutes(organizerKind, {
  item: OrganizerSchema,
  createBody: CreateOrganizerBodySchema,
  updateBody: UpdateOrganizerBodySchema,
});
