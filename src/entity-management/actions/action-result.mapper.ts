import type { Catalog } from '../mapping/catalog.ts';
import { toWireRecord } from '../mapping/record.mapper.ts';
import type { CommandResult, StepResult } from './command-runner.ts';

function toWireResult(catalog: Catalog, result: StepResult): unknown {
  const mapping = catalog.findByCode(result.entityCode);
  // The catalog and the action come from one snapshot, checked together when loaded.
  if (mapping === undefined) throw new Error(`action result of unknown entity ${result.entityCode}`);
  switch (result.kind) {
    case 'record':
      return toWireRecord(mapping, result.record);
    case 'records':
      return result.records.map((record) => toWireRecord(mapping, record));
    case 'deleted':
      return { key: result.key, deleted: true };
  }
}

/** A command's named results, in readable names: the `runAction` payload. */
export function toActionPayload(catalog: Catalog, results: CommandResult): Record<string, unknown> {
  return Object.fromEntries([...results].map(([name, result]) => [name, toWireResult(catalog, result)]));
}
