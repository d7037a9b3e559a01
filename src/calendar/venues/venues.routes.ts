import { linkedPostRoutes } from '../linked-posts/linked-posts.routes.ts';
import { venueKind } from './venues.kind.ts';
import { CreateVenueBodySchema, UpdateVenueBodySchema, VenueSchema } from './venues.schemas.ts';

/** `/venues…` routes (docs/calendar-venues-organizers.md). */
export const venuesRoutes = linkedPostRoutes(venueKind, {
  item: VenueSchema,
  createBody: CreateVenueBodySchema,
  updateBody: UpdateVenueBodySchema,
});
