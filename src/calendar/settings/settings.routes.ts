import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import { SettingsSchema, UpdateSettingsSchema } from './settings.schemas.ts';
import type { SiteSettingsService } from './settings.service.ts';

const config = { access: 'manage_options' } as const;
const tags = ['settings'];
const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema };

/** `/wp/v2/settings`, as WordPress serves it (docs/settings.md): administrators read and change the site's settings. */
export async function settingsRoutes(app: FastifyInstance, { service }: { service: SiteSettingsService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/settings', { config, schema: getSettingsSchema, handler: getSettings(service) });
  typed.post('/settings', { config, schema: updateSettingsSchema, handler: updateSettings(service) });
}

const getSettingsSchema = {
  operationId: 'getSettings',
  tags,
  summary: 'The site’s settings, each as in effect (its default when never set)',
  response: { 200: SettingsSchema, ...errors },
};
function getSettings(service: SiteSettingsService): Handler<typeof getSettingsSchema> {
  return async (request) => service.current(request);
}

const updateSettingsSchema = {
  operationId: 'updateSettings',
  tags,
  summary: 'Change the settings given (null: back to the default); answers them all as they now are',
  body: UpdateSettingsSchema,
  response: { 200: SettingsSchema, ...errors },
};
function updateSettings(service: SiteSettingsService): Handler<typeof updateSettingsSchema> {
  return async (request) => service.update(request.body);
}
