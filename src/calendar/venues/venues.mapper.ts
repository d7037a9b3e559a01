import type { LinkedPostRow, PresentedPost } from '../linked-posts/linked-posts.kind.ts';
import { withoutEmpty } from '../linked-posts/linked-posts.mapper.ts';

/** Venue fields between `image` and `json_ld`; coordinates only as a pair. */
export function venueMetaFields(row: LinkedPostRow): Record<string, unknown> {
  const hasCoordinates = row.geo_lat !== null && row.geo_lng !== null;
  return {
    address: row.address,
    city: row.city,
    country: row.country,
    province: row.province,
    state: row.state,
    zip: row.zip,
    phone: row.phone,
    website: row.website,
    stateprovince: row.stateprovince,
    ...(hasCoordinates ? { geo_lat: Number(row.geo_lat), geo_lng: Number(row.geo_lng) } : {}),
  };
}

/** The map flags are appended after falsy fields are dropped, so `false` shows. */
export function venueAlwaysFields(row: LinkedPostRow): Record<string, unknown> {
  return { show_map: row.show_map === 1, show_map_link: row.show_map_link === 1 };
}

/** schema.org `Place` (as the reference: the venue's own object has no `@context`). */
export function venueJsonLd(post: PresentedPost): Record<string, unknown> {
  const { row } = post;
  const address = withoutEmpty({
    streetAddress: row.address,
    addressLocality: row.city,
    addressRegion: row.stateprovince || row.province || row.state,
    postalCode: row.zip,
    addressCountry: row.country,
  });
  const hasCoordinates = row.geo_lat !== null && row.geo_lng !== null;
  return withoutEmpty({
    '@type': 'Place',
    name: post.name,
    description: post.descriptionText,
    image: post.imageUrl,
    url: post.url,
    address: Object.keys(address).length > 0 ? { '@type': 'PostalAddress', ...address } : undefined,
    geo: hasCoordinates ? { '@type': 'GeoCoordinates', latitude: Number(row.geo_lat), longitude: Number(row.geo_lng) } : undefined,
    telephone: row.phone,
    sameAs: row.website,
  });
}
