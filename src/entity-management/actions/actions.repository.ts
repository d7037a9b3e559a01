import type { Db } from '../../platform/db/schema.ts';
import type { ActionTable } from '../entity-management.tables.ts';

export async function listActionRows(db: Db): Promise<ActionTable[]> {
  return db.selectFrom('em_actions').selectAll().orderBy('code').execute();
}

/** Inserts the actions whose code is not taken yet; returns how many were new. */
export async function insertMissingActions(db: Db, rows: readonly ActionTable[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db
    .insertInto('em_actions')
    .values([...rows])
    .onConflict((conflict) => conflict.column('code').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** Writes one action as given (checked only when loaded): the back-end's write path for definitions. */
export async function saveAction(db: Db, row: ActionTable): Promise<void> {
  await db
    .insertInto('em_actions')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('code').doUpdateSet({
        description: row.description,
        params: row.params,
        command: row.command,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** The stamp every process compares with its own to notice changed definitions. */
export async function readDefinitionsVersion(db: Db): Promise<number> {
  const row = await db.selectFrom('em_definitions_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.version;
}

export async function bumpDefinitionsVersion(db: Db): Promise<number> {
  const row = await db
    .updateTable('em_definitions_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}
