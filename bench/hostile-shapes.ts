/**
 * Requests of distinct hostile shapes (issue 19.4): id lists of every length
 * up to the parameter limit, searches of every word count, entity filters and
 * projections in many combinations — each a statement the database has not
 * seen. What the server keeps per shape (prepared statements, caches) must
 * stay bounded: the benchmark reads its RSS after them.
 */
import { randomBytes } from 'node:crypto';

const CALENDAR = '/calendar/events/v1';
const ENTITIES = '/apiservice/api/services/entity-management';
const ENTITY_FIELDS = ['CompanyName', 'VatNumber', 'CityCodeDescription', 'Province', 'CreditLimit'];

const word = () => randomBytes(3).toString('hex');
const ids = (count: number, from: number) => Array.from({ length: count }, (_, index) => from + index).join(',');

/** The `index`-th request of the family: a path with its query string, and whether it needs the bearer token. */
export function hostileShape(index: number): { path: string; authenticated: boolean } {
  const length = 1 + (index % 997);
  switch (index % 8) {
    case 0:
      return { path: `${CALENDAR}/events?include=${ids(length, 1)}`, authenticated: false };
    case 1:
      return { path: `${CALENDAR}/events?venue=${ids(length, 10_000_000)}`, authenticated: false };
    case 2:
      return { path: `${CALENDAR}/events?categories=${Array.from({ length: 1 + (index % 50) }, word).join(',')}`, authenticated: false };
    case 3:
      return {
        path: `${CALENDAR}/venues?search=${encodeURIComponent(Array.from({ length: 1 + (index % 40) }, () => 'a').join(' '))}`,
        authenticated: false,
      };
    case 4:
      return {
        path: `${CALENDAR}/events?search=${Array.from({ length: 1 + (index % 9) }, word).join('+')}&organizer=${ids(1 + (index % 300), 1)}`,
        authenticated: false,
      };
    case 5:
      return { path: `${CALENDAR}/tags?include=${ids(length, 1)}&hide_empty=false`, authenticated: false };
    case 6: {
      const fields = ENTITY_FIELDS.filter((_, bit) => (index >> bit) & 1);
      const filters = ENTITY_FIELDS.filter((_, bit) => (index >> (bit + 5)) & 1).map((field) => `filter[${field}]=${word()}`);
      return {
        path: `${ENTITIES}/customers?${[`fields=${fields.join(',') || 'key'}`, ...filters, `q=${word()}`].join('&')}`,
        authenticated: true,
      };
    }
    default:
      return { path: `${CALENDAR}/organizers?event=${1 + index}&search=${word()}&${word()}=${word()}`, authenticated: false };
  }
}

/** Sends `count` hostile shapes, `concurrency` at a time; returns how many answers had each status. */
export async function sendHostileShapes(baseUrl: string, bearer: string, count: number, concurrency = 16): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const { path, authenticated } = hostileShape(next);
      next += 1;
      const response = await fetch(`${baseUrl}${path}`, authenticated ? { headers: { authorization: `Bearer ${bearer}` } } : {});
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}
