import Type, { type Static } from 'typebox';

/**
 * The stored action language: its JSON schema, one fact used both to check
 * definitions when they are loaded and in docs/entity-management.md.
 */

const Name = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' });
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
/** Field codes → values; strings may hold `{{param}}` placeholders. */
const Values = Type.Record(Type.String({ minLength: 1 }), Scalar);

export const ParamDeclarationSchema = Type.Object(
  {
    name: Name,
    type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('integer'), Type.Literal('boolean')]),
    required: Type.Boolean(),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ParamDeclaration = Static<typeof ParamDeclarationSchema>;
export type ParamType = ParamDeclaration['type'];

export const ParamsSchema = Type.Array(ParamDeclarationSchema, { maxItems: 32 });

const common = {
  /** Internal entity code. */
  entity: Type.String({ minLength: 1 }),
  /** The step's result goes into the payload under this name. */
  as: Type.Optional(Name),
};
const Key = Type.String({ minLength: 1 });

export const STEP_SCHEMAS = {
  get: Type.Object({ op: Type.Literal('get'), ...common, key: Key }, { additionalProperties: false }),
  list: Type.Object(
    {
      op: Type.Literal('list'),
      ...common,
      filter: Type.Optional(Values),
      search: Type.Optional(Type.String()),
      /** A field code or `key`, `-` prefixed for descending. */
      sort: Type.Optional(Type.String({ minLength: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    },
    { additionalProperties: false },
  ),
  create: Type.Object({ op: Type.Literal('create'), ...common, key: Key, values: Values }, { additionalProperties: false }),
  update: Type.Object({ op: Type.Literal('update'), ...common, key: Key, values: Values }, { additionalProperties: false }),
  delete: Type.Object({ op: Type.Literal('delete'), ...common, key: Key }, { additionalProperties: false }),
} as const;

export type StepOperation = keyof typeof STEP_SCHEMAS;
export const STEP_OPERATIONS = Object.keys(STEP_SCHEMAS) as StepOperation[];
export type Step = { [Op in StepOperation]: Static<(typeof STEP_SCHEMAS)[Op]> }[StepOperation];

export const CommandSchema = Type.Object(
  {
    steps: Type.Array(Type.Union([STEP_SCHEMAS.get, STEP_SCHEMAS.list, STEP_SCHEMAS.create, STEP_SCHEMAS.update, STEP_SCHEMAS.delete]), {
      minItems: 1,
      maxItems: 20,
    }),
  },
  { additionalProperties: false },
);
export type Command = Static<typeof CommandSchema>;
