import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
import Type from 'typebox';
import { envelope } from '../envelope.ts';
import {
  ACTION_EXAMPLE,
  ActionCodeParamsSchema,
  ActionSchema,
  EnvelopeSchema,
  ReloadSchema,
  RunActionBodySchema,
  SECURITY,
  errorResponses,
} from '../schemas.ts';
import type { ActionsService } from './actions.service.ts';

const tags = ['entity-management actions'];

export async function actionsRoutes(app: FastifyInstance, { service }: { service: ActionsService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/', { config: { access: 'entities_read' }, schema: actionsSchema, handler: actions(service) });
  typed.get('/:code', { config: { access: 'entities_read' }, schema: actionSchema, handler: action(service) });
  // Reading is enough to reach the action; a command with write steps also needs write rights (checked on run).
  typed.post('/:code/run', { config: { access: 'entities_read' }, schema: runActionSchema, handler: runAction(service) });
  typed.post('/reload', { config: { access: 'actions_reload' }, schema: reloadActionsSchema, handler: reloadActions(service) });
}

const actionsSchema = {
  operationId: 'actions',
  tags,
  summary: 'The loaded actions, each with its command',
  security: SECURITY,
  response: {
    200: EnvelopeSchema(Type.Array(ActionSchema), {
      messages: [{ level: 'info', code: 'OK', text: '5 actions' }],
      payload: [ACTION_EXAMPLE],
    }),
    ...errorResponses(401, 403, 429),
  },
};
function actions(service: ActionsService): Handler<typeof actionsSchema> {
  return async () => {
    const loaded = service.list();
    return envelope(loaded, { level: 'info', code: 'OK', text: `${loaded.length} actions` });
  };
}

const actionSchema = {
  operationId: 'action',
  tags,
  summary: 'One action with its command',
  security: SECURITY,
  params: ActionCodeParamsSchema,
  response: {
    200: EnvelopeSchema(ActionSchema, { messages: [{ level: 'info', code: 'OK', text: '1 action' }], payload: ACTION_EXAMPLE }),
    ...errorResponses(400, 401, 403, 404, 429),
  },
};
function action(service: ActionsService): Handler<typeof actionSchema> {
  return async (request) => envelope(service.get(request.params.code), { level: 'info', code: 'OK', text: '1 action' });
}

const runActionSchema = {
  operationId: 'runAction',
  tags,
  summary: "Run an action's command with a JSON object of parameters",
  description:
    'Parameters are checked against the declaration (422 ACTION_PARAMS_INVALID); all steps run in one transaction ' +
    '(409 ACTION_FAILED when a step fails: nothing changed). The payload has one property per named step.',
  security: SECURITY,
  params: ActionCodeParamsSchema,
  body: RunActionBodySchema,
  response: {
    200: EnvelopeSchema(Type.Record(Type.String(), Type.Unknown()), {
      messages: [{ level: 'info', code: 'OK', text: 'CUSTOMERS_BY_CITY done' }],
      payload: { customers: [{ key: 'C0001', CompanyName: 'Meccanica Rossi S.p.A.', CityCodeDescription: 'Brescia' }] },
    }),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429),
  },
};
function runAction(service: ActionsService): Handler<typeof runActionSchema> {
  return async (request) => {
    const { code } = request.params;
    const payload = await service.run(code, request.user?.role ?? null, request.body);
    return envelope(payload, { level: 'info', code: 'OK', text: `${code} done` });
  };
}

const reloadActionsSchema = {
  operationId: 'reloadActions',
  tags,
  summary: 'Reload the action list from the back-end (administrators)',
  description: 'All or nothing: when a definition is broken it is reported in `errors` (warning RELOAD_REFUSED) and the old list stays.',
  security: SECURITY,
  response: {
    200: EnvelopeSchema(ReloadSchema, {
      messages: [{ level: 'info', code: 'OK', text: '5 actions loaded' }],
      payload: { loaded: 5, version: 2, errors: [] },
    }),
    ...errorResponses(401, 403, 429),
  },
};
function reloadActions(service: ActionsService): Handler<typeof reloadActionsSchema> {
  return async () => {
    const reloaded = await service.reload();
    const outcome = { ...reloaded, errors: [...reloaded.errors] };
    return outcome.errors.length === 0
      ? envelope(outcome, { level: 'info', code: 'OK', text: `${outcome.loaded} actions loaded` })
      : envelope(outcome, {
          level: 'warning',
          code: 'RELOAD_REFUSED',
          text: `${outcome.errors.length} broken definition(s); the previous ${outcome.loaded} actions stay loaded`,
        });
  };
}
