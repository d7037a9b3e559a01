import { AppError } from '../../platform/errors.ts';
import { EntityErrors } from '../errors.ts';
import type { EntityBackend, EntityProvider, EntityRecord, FieldFilter, FieldValue } from '../provider/entity-provider.ts';
import type { Step } from './action.schemas.ts';
import type { Action } from './action-definition.ts';
import { fill, type RunParams } from './placeholders.ts';

/** What one step produced, in internal codes; the edge maps it to readable names. */
export type StepResult =
  | { readonly kind: 'record'; readonly entityCode: string; readonly record: EntityRecord }
  | { readonly kind: 'records'; readonly entityCode: string; readonly records: readonly EntityRecord[] }
  | { readonly kind: 'deleted'; readonly entityCode: string; readonly key: string };

/** The results of the steps that have an `as` name, by that name. */
export type CommandResult = ReadonlyMap<string, StepResult>;

const LIST_LIMIT = 100;

function filledKey(template: string, params: RunParams): string {
  const key = fill(template, params);
  if (key === undefined || key === null || key === '') throw EntityErrors.invalidParameter({ key: 'is empty' });
  return String(key);
}

function filledValues(templates: Readonly<Record<string, FieldValue>>, params: RunParams): Record<string, FieldValue> {
  return Object.fromEntries(
    Object.entries(templates).flatMap(([field, template]) => {
      const value = fill(template, params);
      return value === undefined ? [] : [[field, value]];
    }),
  );
}

function filledFilters(templates: Readonly<Record<string, FieldValue>>, params: RunParams): FieldFilter[] {
  return Object.entries(filledValues(templates, params)).flatMap(([field, value]) => (value === null ? [] : [{ field, value }]));
}

async function runStep(provider: EntityProvider, step: Step, params: RunParams): Promise<StepResult> {
  switch (step.op) {
    case 'get': {
      const key = filledKey(step.key, params);
      const [record] = (await provider.read(step.entity, { key, perPage: 1 })).records;
      if (record === undefined) throw EntityErrors.recordNotFound(key);
      return { kind: 'record', entityCode: step.entity, record };
    }
    case 'list': {
      const search = step.search === undefined ? undefined : fill(step.search, params);
      const sort = step.sort === undefined || step.sort.replace(/^-/, '') === 'key' ? undefined : step.sort.replace(/^-/, '');
      const { records } = await provider.read(step.entity, {
        filters: filledFilters(step.filter ?? {}, params),
        search: typeof search === 'string' ? search : undefined,
        sort: step.sort === undefined ? undefined : { field: sort, descending: step.sort.startsWith('-') },
        perPage: step.limit ?? LIST_LIMIT,
      });
      return { kind: 'records', entityCode: step.entity, records };
    }
    case 'create':
    case 'update': {
      const record = { key: filledKey(step.key, params), values: filledValues(step.values, params) };
      const written = await provider.write(step.entity, step.op, record);
      return { kind: 'record', entityCode: step.entity, record: written ?? record };
    }
    case 'delete': {
      const key = filledKey(step.key, params);
      await provider.write(step.entity, 'delete', { key, values: {} });
      return { kind: 'deleted', entityCode: step.entity, key };
    }
  }
}

/**
 * Runs every step of the action's command in one transaction: a step that
 * fails (missing record, taken key) undoes the steps before it and becomes a
 * 409 `ACTION_FAILED` naming it. Faults of the back-end itself propagate.
 */
export async function runCommand(backend: EntityBackend, action: Action, params: RunParams): Promise<CommandResult> {
  return backend.transaction(async (provider) => {
    const results = new Map<string, StepResult>();
    for (const [index, step] of action.command.steps.entries()) {
      let result: StepResult;
      try {
        result = await runStep(provider, step, params);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) throw EntityErrors.actionFailed(index + 1, error.message);
        throw error;
      }
      if (step.as !== undefined) results.set(step.as, result);
    }
    return results;
  });
}
