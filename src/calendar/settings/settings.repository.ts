import type { Db } from '../../platform/db/schema.ts';

/** The settings that were set, by name: each value as stored (JSON text). */
export async function listSettings(db: Db): Promise<Map<string, string>> {
  const rows = await db.selectFrom('site_settings').select(['name', 'value']).execute();
  return new Map(rows.map((row) => [row.name, row.value]));
}

/** Sets `values` (JSON texts by name) and removes `unset`, in one statement each. */
export async function saveSettings(db: Db, values: ReadonlyMap<string, string>, unset: readonly string[]): Promise<void> {
  if (unset.length > 0) await db.deleteFrom('site_settings').where('name', 'in', unset).execute();
  if (values.size === 0) return;
  await db
    .insertInto('site_settings')
    .values([...values].map(([name, value]) => ({ name, value })))
    .onConflict((conflict) => conflict.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
}
