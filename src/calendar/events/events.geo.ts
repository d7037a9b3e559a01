/**
 * Geolocation filter (docs/calendar-events.md): a latitude/longitude box lets the
 * venues index do the prefiltering; the great-circle distance decides.
 */

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

export interface GeoBox {
  readonly latitude: readonly [number, number];
  /** One range, or two when the box crosses the antimeridian. */
  readonly longitudes: readonly (readonly [number, number])[];
}

export function boundingBox(latitude: number, longitude: number, radiusKm: number): GeoBox {
  const deltaLat = radiusKm / KM_PER_DEGREE;
  const south = latitude - deltaLat;
  const north = latitude + deltaLat;
  if (south <= -90 || north >= 90) return { latitude: [Math.max(-90, south), Math.min(90, north)], longitudes: [[-180, 180]] };
  const widest = Math.max(Math.abs(south), Math.abs(north));
  const deltaLng = Math.min(180, deltaLat / Math.cos((widest * Math.PI) / 180));
  const west = longitude - deltaLng;
  const east = longitude + deltaLng;
  if (deltaLng >= 180) return { latitude: [south, north], longitudes: [[-180, 180]] };
  if (west < -180)
    return {
      latitude: [south, north],
      longitudes: [
        [-180, east],
        [west + 360, 180],
      ],
    };
  if (east > 180)
    return {
      latitude: [south, north],
      longitudes: [
        [west, 180],
        [-180, east - 360],
      ],
    };
  return { latitude: [south, north], longitudes: [[west, east]] };
}

/** Haversine distance in kilometres. */
export function distanceKm(fromLat: number, fromLng: number, toLat: number, toLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (toLat - fromLat) * rad;
  const dLng = (toLng - fromLng) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(fromLat * rad) * Math.cos(toLat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}
