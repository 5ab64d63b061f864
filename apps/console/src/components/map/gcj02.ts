/**
 * WGS-84 ↔ GCJ-02 ("Mars coordinates"), the obfuscated datum that Chinese tile
 * sources (AMap, Tencent, Tianditu's GCJ layers) are drawn in. Positions stay
 * WGS-84 everywhere on the wire (contract); the map converts only when its tile
 * source needs GCJ-02. The forward transform is the published one (Krasovsky
 * 1940 ellipsoid, offset polynomials around 105°E 35°N); there is no closed-form
 * inverse, so the reverse iterates the forward transform until it stops moving.
 */

export interface LatLng {
  lat: number;
  lng: number;
}

/** Krasovsky 1940 semi-major axis (m) and eccentricity squared. */
const A = 6378245.0;
const EE = 0.006693421622965943;

/** Outside this box the transform is the identity (as every published implementation does). */
export function outOfChina(lat: number, lng: number): boolean {
  return lng < 72.004 || lng > 137.8347 || lat < 0.8293 || lat > 55.8271;
}

function offsetLat(x: number, y: number): number {
  let d = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * Math.sqrt(Math.abs(x));
  d += ((20 * Math.sin(6 * x * Math.PI) + 20 * Math.sin(2 * x * Math.PI)) * 2) / 3;
  d += ((20 * Math.sin(y * Math.PI) + 40 * Math.sin((y / 3) * Math.PI)) * 2) / 3;
  d += ((160 * Math.sin((y / 12) * Math.PI) + 320 * Math.sin((y * Math.PI) / 30)) * 2) / 3;
  return d;
}

function offsetLng(x: number, y: number): number {
  let d = 300 + x + 2 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * Math.sqrt(Math.abs(x));
  d += ((20 * Math.sin(6 * x * Math.PI) + 20 * Math.sin(2 * x * Math.PI)) * 2) / 3;
  d += ((20 * Math.sin(x * Math.PI) + 40 * Math.sin((x / 3) * Math.PI)) * 2) / 3;
  d += ((150 * Math.sin((x / 12) * Math.PI) + 300 * Math.sin((x / 30) * Math.PI)) * 2) / 3;
  return d;
}

export function wgs84ToGcj02({ lat, lng }: LatLng): LatLng {
  if (outOfChina(lat, lng)) return { lat, lng };
  const radLat = (lat / 180) * Math.PI;
  const sin = Math.sin(radLat);
  const magic = 1 - EE * sin * sin;
  const sqrtMagic = Math.sqrt(magic);
  const dLat = (offsetLat(lng - 105, lat - 35) * 180) / (((A * (1 - EE)) / (magic * sqrtMagic)) * Math.PI);
  const dLng = (offsetLng(lng - 105, lat - 35) * 180) / ((A / sqrtMagic) * Math.cos(radLat) * Math.PI);
  return { lat: lat + dLat, lng: lng + dLng };
}

/** Iterations of the inverse: each one shrinks the error ~100×; 1e-9° is well under a millimetre. */
const MAX_ITERATIONS = 10;
const EPSILON_DEG = 1e-9;

export function gcj02ToWgs84(gcj: LatLng): LatLng {
  if (outOfChina(gcj.lat, gcj.lng)) return { ...gcj };
  let guess = { lat: gcj.lat, lng: gcj.lng };
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const forward = wgs84ToGcj02(guess);
    const dLat = forward.lat - gcj.lat;
    const dLng = forward.lng - gcj.lng;
    guess = { lat: guess.lat - dLat, lng: guess.lng - dLng };
    if (Math.abs(dLat) < EPSILON_DEG && Math.abs(dLng) < EPSILON_DEG) break;
  }
  return guess;
}

/** The datum a map draws in, and the conversion of WGS-84 positions into it and back. */
export type Datum = 'wgs84' | 'gcj02';

export function toDatum(point: LatLng, datum: Datum): LatLng {
  return datum === 'gcj02' ? wgs84ToGcj02(point) : point;
}

export function fromDatum(point: LatLng, datum: Datum): LatLng {
  return datum === 'gcj02' ? gcj02ToWgs84(point) : point;
}
