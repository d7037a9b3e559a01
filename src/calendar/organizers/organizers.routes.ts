import { linkedPostRoutes } from '../linked-posts/linked-posts.routes.ts';
import { organizerKind } from './organizers.kind.ts';
import { CreateOrganizerBodySchema, OrganizerSchema, UpdateOrganizerBodySchema } from './organizers.schemas.ts';

/** `/organizers…` routes (reference §5). */
export const organizersRoutes = linkedPostRoutes(organizerKind, {
  item: OrganizerSchema,
  createBody: CreateOrganizerBodySchema,
  updateBody: UpdateOrganizerBodySchema,
});
