/** Geometry of fences drawn on the map, in WGS-84 degrees and metres. */
import type { LatLng } from '@/components/map/gcj02';

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance in metres. */
export function distanceM(a: LatLng, b: LatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The point `metres` east of `p` (the radius handle of a circle). */
export function eastOf(p: LatLng, metres: number): LatLng {
  return { lat: p.lat, lng: p.lng + (metres / (EARTH_RADIUS_M * Math.cos(rad(p.lat)))) * (180 / Math.PI) };
}

/**
 * A corridor (route ± half its width) as one rectangle per segment, in degrees;
 * the map adds a disc at each joint. Exact enough at fence scale (a local flat
 * projection per segment).
 */
export function corridorSegments(points: readonly LatLng[], widthM: number): LatLng[][] {
  const half = widthM / 2;
  const out: LatLng[][] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i];
    const b = points[i + 1];
    const mPerDegLat = (Math.PI / 180) * EARTH_RADIUS_M;
    const mPerDegLng = mPerDegLat * Math.cos(rad((a.lat + b.lat) / 2));
    const dx = (b.lng - a.lng) * mPerDegLng;
    const dy = (b.lat - a.lat) * mPerDegLat;
    const len = Math.hypot(dx, dy);
    if (len === 0) continue;
    // Unit normal, scaled to half the width, back in degrees.
    const nx = (-dy / len) * half;
    const ny = (dx / len) * half;
    const off = (p: LatLng, s: number): LatLng => ({ lat: p.lat + (s * ny) / mPerDegLat, lng: p.lng + (s * nx) / mPerDegLng });
    out.push([off(a, 1), off(b, 1), off(b, -1), off(a, -1)]);
  }
  return out;
}
