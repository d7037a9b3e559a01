import type { Db } from '../../platform/db/schema.ts';
import type { EntityTypeTable, FieldTable } from '../entity-management.tables.ts';
import { DefinitionError } from '../definition-error.ts';
import { FIELD_TYPES, type EntityTypeDefinition, type FieldType } from './catalog.ts';

function isFieldType(value: string): value is FieldType {
  return (FIELD_TYPES as readonly string[]).includes(value);
}

/** Every entity type with its fields, in their declared order. A field of an unknown type is a `DefinitionError`. */
export async function listEntityTypes(db: Db): Promise<EntityTypeDefinition[]> {
  const types = await db.selectFrom('em_entity_types').selectAll().orderBy('position').orderBy('code').execute();
  const fields = await db.selectFrom('em_fields').selectAll().orderBy('entity_code').orderBy('position').orderBy('code').execute();
  return types.map((type) => ({
    code: type.code,
    name: type.name,
    segment: type.segment,
    description: type.description,
    fields: fields
      .filter((field) => field.entity_code === type.code)
      .map((field) => {
        if (!isFieldType(field.type)) {
          throw new DefinitionError(`${type.code}.${field.code}`, `unknown field type "${field.type}"`);
        }
        return { code: field.code, name: field.name, type: field.type, description: field.description };
      }),
  }));
}

/** Inserts the types and fields that are not there yet; returns how many rows were new. */
export async function insertMissingEntityTypes(db: Db, types: readonly EntityTypeTable[], fields: readonly FieldTable[]): Promise<number> {
  if (types.length === 0) return 0;
  const newTypes = await db
    .insertInto('em_entity_types')
    .values([...types])
    .onConflict((conflict) => conflict.column('code').doNothing())
    .executeTakeFirst();
  if (fields.length === 0) return Number(newTypes.numInsertedOrUpdatedRows ?? 0n);
  const newFields = await db
    .insertInto('em_fields')
    .values([...fields])
    .onConflict((conflict) => conflict.columns(['entity_code', 'code']).doNothing())
    .executeTakeFirst();
  return Number(newTypes.numInsertedOrUpdatedRows ?? 0n) + Number(newFields.numInsertedOrUpdatedRows ?? 0n);
}
