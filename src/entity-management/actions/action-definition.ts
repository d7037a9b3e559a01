import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import type { EntityManagementCapability } from '../entity-management.capabilities.ts';
import { DefinitionError } from '../definition-error.ts';
import type { ActionTable } from '../entity-management.tables.ts';
import type { Catalog, EntityMapping, FieldType } from '../mapping/catalog.ts';
import { toFieldValue } from '../mapping/record.mapper.ts';
import type { FieldValue } from '../provider/entity-provider.ts';
import {
  CommandSchema,
  ParamsSchema,
  STEP_OPERATIONS,
  STEP_SCHEMAS,
  type Command,
  type ParamDeclaration,
  type ParamType,
  type Step,
  type StepOperation,
} from './action.schemas.ts';
import { placeholdersIn, wholePlaceholder } from './placeholders.ts';

/** A loaded, checked action: immutable, so a run keeps the definition it started with across reloads. */
export interface Action {
  readonly code: string;
  readonly description: string;
  readonly params: readonly ParamDeclaration[];
  readonly command: Command;
  /** What running it needs: any write step needs write rights. */
  readonly capability: Extract<EntityManagementCapability, 'entities_read' | 'entities_write'>;
}

const FIELD_TYPE_OF_PARAM: Record<ParamType, FieldType> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
};

const WRITES: ReadonlySet<StepOperation> = new Set(['create', 'update', 'delete']);

function parseJson(code: string, what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DefinitionError(code, `${what} is not valid JSON`);
  }
}

function check(code: string, what: string, schema: TSchema, value: unknown): void {
  const [first] = Value.Errors(schema, value);
  if (first !== undefined) throw new DefinitionError(code, `${what}${first.instancePath} ${first.message}`);
}

function isStepOperation(op: unknown): op is StepOperation {
  return (STEP_OPERATIONS as readonly unknown[]).includes(op);
}

/** Checks one template value against its field and the declared parameters. */
function checkValue(
  fail: (message: string) => never,
  params: ReadonlyMap<string, ParamDeclaration>,
  fieldName: string,
  type: FieldType,
  template: FieldValue,
): void {
  if (typeof template !== 'string') {
    const literal = toFieldValue(type, template);
    if ('problem' in literal) fail(`the value of ${fieldName} ${literal.problem}`);
    return;
  }
  const names = placeholdersIn(template);
  for (const name of names) if (!params.has(name)) fail(`{{${name}}} is not a declared parameter`);
  const whole = wholePlaceholder(template);
  if (whole !== undefined) {
    const param = params.get(whole);
    if (param !== undefined && FIELD_TYPE_OF_PARAM[param.type] !== type) {
      fail(`parameter ${whole} (${param.type}) does not fit ${fieldName} (${type})`);
    }
  } else if (type !== 'string') {
    fail(`${fieldName} is a ${type} field: give it a literal or a whole {{placeholder}}`);
  }
}

function checkStep(code: string, index: number, step: Step, catalog: Catalog, params: ReadonlyMap<string, ParamDeclaration>): void {
  const fail = (message: string): never => {
    throw new DefinitionError(code, `step ${index + 1}: ${message}`);
  };
  const mapping: EntityMapping = catalog.findByCode(step.entity) ?? fail(`unknown entity code "${step.entity}"`);
  const fieldType = (field: string): FieldType => (mapping.fieldByCode(field) ?? fail(`unknown field "${field}" of ${step.entity}`)).type;

  if ('key' in step) checkValue(fail, params, 'the key', 'string', step.key);
  switch (step.op) {
    case 'list': {
      for (const [field, value] of Object.entries(step.filter ?? {})) checkValue(fail, params, field, fieldType(field), value);
      if (step.search !== undefined) checkValue(fail, params, 'search', 'string', step.search);
      const sortField = step.sort?.replace(/^-/, '');
      if (sortField !== undefined && sortField !== 'key') fieldType(sortField);
      break;
    }
    case 'create':
    case 'update':
      for (const [field, value] of Object.entries(step.values)) checkValue(fail, params, field, fieldType(field), value);
      break;
    case 'get':
    case 'delete':
      break;
  }
}

/** A stored row → an `Action`, or a `DefinitionError` saying what is wrong with it. */
export function toAction(row: ActionTable, catalog: Catalog): Action {
  const declared = parseJson(row.code, 'params', row.params);
  check(row.code, 'params', ParamsSchema, declared);
  const paramList = declared as ParamDeclaration[];
  const params = new Map(paramList.map((param) => [param.name, param]));
  if (params.size !== paramList.length) throw new DefinitionError(row.code, 'params: a name is declared twice');

  const command = parseJson(row.code, 'command', row.command) as { steps?: unknown };
  if (typeof command !== 'object' || command === null || !Array.isArray(command.steps) || command.steps.length === 0) {
    throw new DefinitionError(row.code, 'command must be an object with a non-empty steps array');
  }
  const steps = command.steps as unknown[];
  steps.forEach((step, index) => {
    const op = (step as { op?: unknown } | null)?.op;
    if (!isStepOperation(op)) {
      throw new DefinitionError(row.code, `step ${index + 1}: op must be one of ${STEP_OPERATIONS.join(', ')}`);
    }
    check(row.code, `step ${index + 1}`, STEP_SCHEMAS[op], step);
  });
  const typed = command as Command;
  const names = typed.steps.flatMap((step) => (step.as === undefined ? [] : [step.as]));
  if (new Set(names).size !== names.length) throw new DefinitionError(row.code, 'two steps share one "as" name');
  typed.steps.forEach((step, index) => checkStep(row.code, index, step, catalog, params));
  check(row.code, 'command', CommandSchema, typed);

  return Object.freeze({
    code: row.code,
    description: row.description,
    params: Object.freeze(paramList),
    command: typed,
    capability: typed.steps.some((step) => WRITES.has(step.op)) ? 'entities_write' : 'entities_read',
  });
}
