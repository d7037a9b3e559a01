import { ImportProblemError } from '../common/import-problems.ts';

/**
 * The columns a CSV file may have, by the headers the reference's CSV
 * importer writes and a few plainer ones; headers are compared without case,
 * spaces around them or repeated spaces. `--map "Header=field"` names the
 * field of any other header.
 */

export type CsvKind = 'events' | 'venues' | 'organizers';

/** Each field with the headers that mean it; the first field of a kind is its name, the one column a file needs. */
export const FIELDS: Readonly<Record<CsvKind, Readonly<Record<string, readonly string[]>>>> = {
  events: {
    title: ['event name', 'event title', 'name', 'title'],
    id: ['event id', 'id', 'uid'],
    description: ['event description', 'description'],
    excerpt: ['event excerpt', 'excerpt'],
    start_date: ['event start date', 'start date'],
    start_time: ['event start time', 'start time'],
    end_date: ['event end date', 'end date'],
    end_time: ['event end time', 'end time'],
    all_day: ['all day event', 'event all day', 'all day'],
    timezone: ['event time zone', 'event timezone', 'time zone', 'timezone'],
    venue: ['event venue name', 'venue name', 'venue'],
    organizers: [
      'event organizer name(s) or id(s)',
      'event organizer name',
      'event organizer names',
      'organizer name',
      'organizers',
      'organizer',
    ],
    categories: ['event category', 'event categories', 'categories', 'category'],
    tags: ['event tags', 'tags'],
    cost: ['event cost', 'cost'],
    currency_symbol: ['event currency symbol', 'currency symbol', 'currency'],
    currency_position: ['event currency position', 'currency position'],
    website: ['event website', 'website', 'url'],
    image: ['event featured image', 'featured image', 'featured image url', 'image'],
    status: ['event status', 'status'],
    hide_from_listings: ['hide event from event listings', 'hide from event listings', 'hide from listings'],
    sticky: ['event sticky in month view', 'sticky in month view', 'sticky'],
    featured: ['feature event', 'featured event', 'featured'],
    show_map: ['event show map', 'show map'],
    show_map_link: ['event show map link', 'show map link'],
  },
  venues: {
    venue: ['venue name', 'name', 'venue'],
    id: ['venue id', 'id'],
    description: ['venue description', 'description'],
    address: ['venue address', 'address'],
    address2: ['venue address 2', 'address 2'],
    city: ['venue city', 'city'],
    stateprovince: ['venue state/province', 'state/province', 'venue state', 'state', 'province'],
    zip: ['venue zip', 'zip', 'postal code'],
    country: ['venue country', 'country'],
    phone: ['venue phone', 'phone'],
    website: ['venue website', 'website', 'url'],
    image: ['venue featured image', 'featured image', 'image'],
    geo_lat: ['venue latitude', 'latitude'],
    geo_lng: ['venue longitude', 'longitude'],
  },
  organizers: {
    organizer: ['organizer name', 'name', 'organizer'],
    id: ['organizer id', 'id'],
    description: ['organizer description', 'description'],
    email: ['organizer email', 'email', 'e-mail'],
    website: ['organizer website', 'website', 'url'],
    phone: ['organizer phone', 'phone'],
    image: ['organizer featured image', 'featured image', 'image'],
  },
};

/** The field that names a row: without its column a file is not one of its kind. */
export function nameField(kind: CsvKind): string {
  return Object.keys(FIELDS[kind])[0] as string;
}

export const normaliseHeader = (header: string) => header.trim().replace(/\s+/g, ' ').toLowerCase();

/** A wrong `--map`: the one line the command prints. */
export class MapError extends ImportProblemError {}

/** `--map "Header=field,Other header=field"` as normalised header → field. */
export function parseMap(text: string | undefined): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  if (text === undefined) return map;
  for (const pair of text.split(',')) {
    const at = pair.lastIndexOf('=');
    const header = normaliseHeader(pair.slice(0, Math.max(at, 0)));
    const field = pair.slice(at + 1).trim();
    if (at < 0 || header === '' || field === '') throw new MapError('csv_map_pair', { pair: pair.trim() });
    map.set(header, field);
  }
  return map;
}

/** Where each field is in a file: its column index, by field; and the headers nothing reads. */
export interface Columns {
  readonly index: ReadonlyMap<string, number>;
  readonly headers: readonly string[];
  readonly ignored: readonly string[];
}

/**
 * The columns of a header row; `map` names fields of other headers (a name that no kind has is a `MapError`).
 * A field given twice keeps its first column.
 */
export function resolveColumns(kind: CsvKind, header: readonly string[], map: ReadonlyMap<string, string>): Columns {
  const fields = FIELDS[kind];
  const known = new Map<string, string>();
  for (const [field, names] of Object.entries(fields)) for (const name of names) if (!known.has(name)) known.set(name, field);
  const index = new Map<string, number>();
  const ignored: string[] = [];
  header.forEach((text, column) => {
    const normalised = normaliseHeader(text);
    const mapped = map.get(normalised);
    const field = mapped !== undefined && mapped in fields ? mapped : mapped === undefined ? known.get(normalised) : undefined;
    if (field === undefined || index.has(field)) {
      if (normalised !== '') ignored.push(text.trim());
    } else index.set(field, column);
  });
  return { index, headers: header, ignored };
}

/** Fields `--map` names that no kind of file has (a typo would otherwise drop a column unnoticed). */
export function unknownMappedFields(map: ReadonlyMap<string, string>): string[] {
  const all = new Set(Object.values(FIELDS).flatMap((fields) => Object.keys(fields)));
  return [...new Set(map.values())].filter((field) => !all.has(field));
}
