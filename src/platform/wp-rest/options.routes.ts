import type { FastifyInstance } from 'fastify';
import { RouteDescriptionSchema, type WpRouteTable } from './route-table.ts';

/**
 * `OPTIONS` on every route of the table, as WordPress answers it: the
 * route's methods and arguments, and `Allow` listing the methods the caller
 * may use. Registered after the routes it describes.
 */
export async function wpOptionsRoutes(app: FastifyInstance, { table }: { table: WpRouteTable }): Promise<void> {
  for (const route of table.routes) {
    const named = route.endpoints.find((endpoint) => endpoint.methods.includes('GET')) ?? route.endpoints[0];
    app.options(route.path, {
      config: { access: 'public' },
      schema: {
        operationId: `${named?.operationId ?? 'route'}Options`,
        tags: ['wordpress'],
        summary: 'The route’s methods and arguments (Allow: the methods the caller may use)',
        ...(route.params === undefined ? {} : { params: route.params }),
        response: { 200: RouteDescriptionSchema },
      },
      handler: async (request, reply) => {
        void reply.header('allow', table.allowedMethods(route, request.user?.role ?? null).join(', '));
        return table.describe(route);
      },
    });
  }
}
