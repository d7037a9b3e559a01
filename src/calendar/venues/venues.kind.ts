import type { LinkedPostKind, MetaValues } from '../linked-posts/linked-posts.kind.ts';
import { textField, websiteField } from '../linked-posts/linked-posts.fields.ts';
import { invalidParam, parseWpBoolean } from '../common/wire.ts';
import { venueAlwaysFields, venueJsonLd, venueMetaFields } from './venues.mapper.ts';
import { unlinkVenueFromEvents, venueIdsLinkedTo } from './venues.repository.ts';

const TEXT_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'] as const;

function flag(input: Readonly<Record<string, unknown>>, name: string, current: unknown): number {
  if (input[name] === undefined) return Number(current);
  const value = parseWpBoolean(input[name]);
  if (value === undefined) throw invalidParam(name);
  return value ? 1 : 0;
}

/** A coordinate as the body schema left it: a number in range, or `null` (sent as `""` too) to clear it. */
function coordinate(input: Readonly<Record<string, unknown>>, name: string, current: unknown): number | null {
  const value = input[name];
  if (value === undefined) return current === null || current === undefined ? null : Number(current);
  return typeof value === 'number' ? value : null;
}

/** reference save_meta: an empty `stateprovince` is the state for US (or no) country, else the province. */
function derivedStateProvince(meta: MetaValues): string {
  const country = String(meta.country ?? '')
    .trim()
    .toLowerCase();
  return country === '' || country === 'us' || country === 'united states' ? String(meta.state ?? '') : String(meta.province ?? '');
}

function writeVenueMeta(input: Readonly<Record<string, unknown>>, existing: MetaValues): MetaValues {
  const meta: Record<string, string | number | null> = {};
  for (const field of TEXT_FIELDS) meta[field] = textField(input, field, existing[field]);
  meta.website = websiteField(input, existing.website);
  meta.show_map = flag(input, 'show_map', existing.show_map);
  meta.show_map_link = flag(input, 'show_map_link', existing.show_map_link);
  meta.geo_lat = coordinate(input, 'geo_lat', existing.geo_lat);
  meta.geo_lng = coordinate(input, 'geo_lng', existing.geo_lng);
  // Coordinates are a pair: name the one missing.
  if (meta.geo_lat === null && meta.geo_lng !== null) throw invalidParam('geo_lat', 'geo_lat and geo_lng go together.');
  if (meta.geo_lng === null && meta.geo_lat !== null) throw invalidParam('geo_lng', 'geo_lat and geo_lng go together.');
  // A stored value that was derived follows a changed state, province or country; one set explicitly stays.
  const wasDerived = input.stateprovince === undefined && existing.stateprovince === derivedStateProvince(existing);
  if (meta.stateprovince === '' || wasDerived) meta.stateprovince = derivedStateProvince(meta);
  return meta;
}

export const venueKind: LinkedPostKind = {
  type: 'venue',
  table: 'venues',
  plural: 'venues',
  nameField: 'venue',
  searchColumns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  matchColumn: 'address',
  linkedIds: venueIdsLinkedTo,
  unlinkFromEvents: unlinkVenueFromEvents,
  defaultMeta: {
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    stateprovince: '',
    website: '',
    show_map: 1,
    show_map_link: 1,
    geo_lat: null,
    geo_lng: null,
  },
  writeMeta: writeVenueMeta,
  metaFields: venueMetaFields,
  alwaysFields: venueAlwaysFields,
  jsonLd: venueJsonLd,
};
