import { seedDefinitions } from '../src/entity-management/seed/definitions.seed.ts';
import { sqlBackend } from '../src/entity-management/provider/sql/sql-provider.ts';
import { progressBar } from '../src/cli/progress.ts';
import type { Store } from '../src/platform/db/database.ts';
import type { EntityFixture } from './scenarios.ts';

const CUSTOMERS = 'CNCLI';
const PER_TRANSACTION = 2_000;
const CITIES = [
  'Brescia', 'Milano', 'Bergamo', 'Verona', 'Torino', 'Bologna', 'Firenze', 'Roma', 'Napoli', 'Padova', 'Genova', 'Bari',
  'Trento', 'Udine', 'Parma', 'Modena', 'Pisa', 'Lecce', 'Cagliari', 'Palermo', 'Catania', 'Perugia', 'Ancona', 'Trieste',
];
const FORMS = ['S.p.A.', 'S.r.l.', 'S.n.c.', 'S.a.s.'];
const WORDS = ['Meccanica', 'Tessile', 'Alimentari', 'Logistica', 'Impianti', 'Arredi', 'Elettronica', 'Costruzioni'];

const keyOf = (index: number) => `BENCH${String(index).padStart(7, '0')}`;

const customer = (index: number) => ({
  key: keyOf(index),
  values: {
    RAGSO: `${WORDS[index % WORDS.length]} ${index} ${FORMS[index % FORMS.length]}`,
    PARIV: `IT${String(10_000_000_000 + index).slice(-11)}`,
    'D_I/57': CITIES[index % CITIES.length]!,
    INDIR: `Via Roma ${(index % 200) + 1}`,
    E_MAIL: `info@customer${index}.example`,
    FIDO: 5_000 * ((index % 8) + 1),
    ZONA: ['NORD', 'CENTRO', 'SUD'][index % 3]!,
  },
});

/**
 * `count` customers for the entity scenarios, written through the
 * entity-management provider (the same path as the API's writes), so the
 * records and their index rows are exactly what the surface stores.
 */
export async function seedEntities(store: Store, count: number): Promise<{ fixture?: EntityFixture; note?: string }> {
  if (count === 0) return { note: 'skipped (--entities 0)' };
  try {
    await seedDefinitions(store);
    const backend = sqlBackend(store);
    // The benchmark database is fresh: the first record present means an earlier pass wrote them all.
    const existing = await backend.transaction((provider) => provider.read(CUSTOMERS, { key: keyOf(0), perPage: 1 }));
    if (existing.total === 0) {
      const progress = progressBar('entities');
      for (let first = 0; first < count; first += PER_TRANSACTION) {
        const last = Math.min(count, first + PER_TRANSACTION);
        await backend.transaction(async (provider) => {
          for (let index = first; index < last; index += 1) await provider.write(CUSTOMERS, 'create', customer(index));
        });
        progress(last, count);
      }
    }
  } catch (error) {
    // The surface is young: a failing seed costs its two scenarios, not the run.
    return { note: `entity seed failed: ${(error as Error).message}` };
  }
  return {
    fixture: {
      type: 'customers',
      key: keyOf(Math.floor(count / 2)),
      fields: ['CompanyName', 'CityCodeDescription'],
      filter: { field: 'CityCodeDescription', value: 'Brescia' },
    },
  };
}
