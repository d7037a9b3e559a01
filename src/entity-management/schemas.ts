import Type, { type TSchema } from 'typebox';
import { wireName, type EntityTypeDefinition, type FieldType } from './mapping/catalog.ts';

/** Schema primitives of the entity-management routes, composed per route. */

export const ListMetaSchema = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});

export const MessageSchema = Type.Object({
  level: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('error')]),
  code: Type.String({ description: 'Stable machine code: OK, CREATED, UPDATED, DELETED, or an error code.' }),
  text: Type.String(),
  meta: Type.Optional(ListMetaSchema),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const RECORD_EXAMPLE = {
  key: 'C0001',
  CompanyName: 'Meccanica Rossi S.p.A.',
  VatNumber: 'IT01000000000',
  CityCodeDescription: 'Brescia',
  Province: 'BS',
  CreditLimit: 5000,
  CDPAG: 'RB30',
};

/** A record as clients see it; each type's fields are in the components named after it. */
export const RecordSchema = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'A record: `key` plus its fields under their readable names; unmapped fields appear under their internal codes. ' +
    'The fields of each type are in the schemas Collaborators, Customers, Items, Projects and Todo.',
  examples: [RECORD_EXAMPLE],
});

export function EnvelopeSchema<T extends TSchema>(payload: T, example: unknown, description = 'Success: the envelope with its payload.') {
  return Type.Object({ messages: Type.Array(MessageSchema), payload }, { description, examples: [example] });
}

export const ErrorEnvelopeSchema = Type.Object(
  { messages: Type.Array(MessageSchema), payload: Type.Null() },
  {
    description: 'An error: one message of level `error` with a stable code; `payload` is null.',
    examples: [
      {
        messages: [
          {
            level: 'error',
            code: 'FIELD_UNKNOWN',
            text: 'Unknown field "Town"; valid fields: CompanyName, VatNumber, CityCodeDescription',
            details: { field: 'Town', valid: ['CompanyName', 'VatNumber', 'CityCodeDescription'] },
          },
        ],
        payload: null,
      },
    ],
  },
);

/** Error responses a route documents, by status. */
export function errorResponses(...statuses: readonly number[]): Record<number, typeof ErrorEnvelopeSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorEnvelopeSchema]));
}

export const SECURITY: ReadonlyArray<Record<string, readonly string[]>> = [{ basicAuth: [] }, { bearerAuth: [] }];

/** Client text that reaches the database: PostgreSQL text cannot hold NUL, so no surface accepts it. */
function Text(options: { minLength?: number; maxLength: number; description: string }) {
  return Type.String({ ...options, pattern: '^[^\\u0000]*$' });
}

const EntityTypeParam = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The type: collaborators, customers, items, projects or todo (or its readable name), case-insensitive.',
});
const EntityKeyParam = Text({ minLength: 1, maxLength: 255, description: 'The record key.' });

// Fastify cannot route a parameter named `entity-type`; the OpenAPI document shows the names clients use.
export const TypeParamsSchema = Type.Object({ entityType: EntityTypeParam });
export const KeyParamsSchema = Type.Object({ entityType: EntityTypeParam, entityKey: EntityKeyParam });

const FieldName = Type.String({ maxLength: 100 });
const FieldsParam = Type.Union([FieldName, Type.Array(FieldName, { maxItems: 50 })], {
  description: 'Readable field names to return (plus key): comma-separated, or repeated.',
});

export const ListEntitiesQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Records per page (at most 100).' }),
  fields: Type.Optional(FieldsParam),
  sort: Type.Optional(Type.String({ maxLength: 101, description: 'A readable field name or key; prefix - for descending. Default: key.' })),
  q: Type.Optional(Text({ maxLength: 200, description: 'Case-insensitive substring of any text field.' })),
  filter: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
      description: 'Exact-match filters by readable field name (or key): filter[FieldName]=value.',
      // What the docs UI pre-fills for Try it out: no filter.
      examples: [{}],
    }),
  ),
});

export const GetEntityQuerySchema = Type.Object({ fields: Type.Optional(FieldsParam) });

export const DeleteEntityQuerySchema = Type.Object({
  'entity-key': Text({ minLength: 1, maxLength: 255, description: 'The key of the record to delete.' }),
});

export const EntityBodySchema = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'A flat object of field values under readable names (unmapped fields under their codes); `key` identifies the record. ' +
    'A PUT merges: fields sent replace, fields omitted stay, null clears.',
  examples: [{ key: 'C0100', CompanyName: 'Tessile Bianchi S.r.l.', CityCodeDescription: 'Bergamo', CreditLimit: 15000 }],
});

export const ActionCodeParamsSchema = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });

export const ActionSchema = Type.Object({
  code: Type.String(),
  description: Type.String(),
  params: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.String(),
      required: Type.Boolean(),
      description: Type.Optional(Type.String()),
    }),
  ),
  command: Type.Unknown({ description: 'The declarative command (see docs/entity-management.md).' }),
  requires: Type.String({ description: 'The capability a caller needs to run it: entities_read or entities_write.' }),
});

export const ACTION_EXAMPLE = {
  code: 'CUSTOMERS_BY_CITY',
  description: 'The customers of a city, by key.',
  params: [{ name: 'city', type: 'string', required: true, description: 'City, e.g. Brescia.' }],
  command: { steps: [{ op: 'list', entity: 'CNCLI', filter: { 'D_I/57': '{{city}}' }, as: 'customers' }] },
  requires: 'entities_read',
};

export const RunActionBodySchema = Type.Unknown({
  description: "A JSON object of the action's parameters, checked against its declaration.",
  examples: [{ city: 'Brescia' }],
});

export const ReloadSchema = Type.Object({
  loaded: Type.Integer({ description: 'Actions in memory now (the old list when the reload was refused).' }),
  version: Type.Integer({ description: 'The definitions version this process holds.' }),
  errors: Type.Array(Type.Object({ code: Type.String(), error: Type.String() })),
});

const JSON_TYPE: Record<FieldType, string> = { string: 'string', number: 'number', boolean: 'boolean' };

/** A type's field table as an OpenAPI component named after the type (documentation of the data-driven body). */
export function toTypeSchema(type: EntityTypeDefinition): Record<string, unknown> {
  return {
    $id: type.name,
    type: 'object',
    description: `${type.description} Path segment: ${type.segment}.`,
    required: ['key'],
    properties: Object.fromEntries([
      ['key', { type: 'string', description: 'Unique key of the record.' }],
      ...type.fields.map((field) => [
        wireName(field),
        {
          type: [JSON_TYPE[field.type], 'null'],
          description: field.name === null ? field.description : `${field.description} Internal code: ${field.code}.`,
        },
      ]),
    ]),
  };
}
