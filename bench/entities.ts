import { bulkCustomerKey, seedBulkCustomers } from '../src/entity-management/seed/bulk-customers.seed.ts';
import { progressBar } from '../src/cli/progress.ts';
import type { Store } from '../src/platform/db/database.ts';
import type { EntityFixture } from './scenarios.ts';

/** `count` customers for the entity scenarios (what `almanac seed --demo --entities N` writes), and what to ask of them. */
export async function seedEntities(store: Store, count: number): Promise<{ fixture?: EntityFixture; note?: string }> {
  if (count === 0) return { note: 'skipped (--entities 0)' };
  try {
    await seedBulkCustomers(store, count, progressBar('entities'));
  } catch (error) {
    // The surface is young: a failing seed costs its two scenarios, not the run.
    return { note: `entity seed failed: ${(error as Error).message}` };
  }
  return {
    fixture: {
      type: 'customers',
      key: bulkCustomerKey(Math.floor(count / 2)),
      fields: ['CompanyName', 'CityCodeDescription'],
      filter: { field: 'CityCodeDescription', value: 'Brescia' },
    },
  };
}
