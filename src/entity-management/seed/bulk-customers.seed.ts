import { settleAfterBulkLoad, type Store } from '../../platform/db/database.ts';
import { sqlBackend } from '../provider/sql/sql-provider.ts';
import { seedDefinitions } from './definitions.seed.ts';

/** Internal code of the customers entity type (definitions.seed.ts). */
const CUSTOMERS = 'CNCLI';
const PER_TRANSACTION = 2_000;
const CITIES = [
  'Brescia',
  'Milano',
  'Bergamo',
  'Verona',
  'Torino',
  'Bologna',
  'Firenze',
  'Roma',
  'Napoli',
  'Padova',
  'Genova',
  'Bari',
  'Trento',
  'Udine',
  'Parma',
  'Modena',
  'Pisa',
  'Lecce',
  'Cagliari',
  'Palermo',
  'Catania',
  'Perugia',
  'Ancona',
  'Trieste',
];
const FORMS = ['S.p.A.', 'S.r.l.', 'S.n.c.', 'S.a.s.'];
const WORDS = ['Meccanica', 'Tessile', 'Alimentari', 'Logistica', 'Impianti', 'Arredi', 'Elettronica', 'Costruzioni'];

/** The key of the `index`-th generated customer. */
export const bulkCustomerKey = (index: number) => `BULK${String(index).padStart(7, '0')}`;

const customer = (index: number) => ({
  key: bulkCustomerKey(index),
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
 * Generated customers `BULK0000000`… up to `count` in all, written through the
 * entity-management provider (the API's own write path, so the records and
 * their index rows are what the surface stores), 2,000 per transaction.
 * Customers already there stay: a second run adds only the missing tail.
 * Returns how many were added.
 */
export async function seedBulkCustomers(store: Store, count: number, onProgress?: (done: number, total: number) => void): Promise<number> {
  await seedDefinitions(store);
  const backend = sqlBackend(store);
  const exists = async (index: number) =>
    (await backend.transaction((provider) => provider.read(CUSTOMERS, { key: bulkCustomerKey(index), perPage: 1 }))).total > 0;
  // Customers are written in key order, whole transactions at a time: those present are a prefix. Find its end.
  let present = 0;
  for (let missing = count; present < missing;) {
    const middle = Math.floor((present + missing) / 2);
    if (await exists(middle)) present = middle + 1;
    else missing = middle;
  }
  for (let first = present; first < count; first += PER_TRANSACTION) {
    const last = Math.min(count, first + PER_TRANSACTION);
    await backend.transaction(async (provider) => {
      for (let index = first; index < last; index += 1) await provider.write(CUSTOMERS, 'create', customer(index));
    });
    onProgress?.(last, count);
  }
  if (present < count) await settleAfterBulkLoad(store);
  return count - present;
}
