/**
 * The raster tile source of the maps, configured at build time:
 *   VITE_MAP_TILE_URL         URL template with {z} {x} {y} (and {s} for subdomains); empty: basemap only
 *   VITE_MAP_TILE_DATUM       gcj02 (AMap, Tencent, …) or wgs84 (default: gcj02 when the URL names a Chinese provider)
 *   VITE_MAP_TILE_SUBDOMAINS  letters or digits for {s}, e.g. 1234
 *   VITE_MAP_TILE_MAX_ZOOM    default 18
 *   VITE_MAP_TILE_ATTRIBUTION shown in the corner
 * The gateway's Content-Security-Policy must allow the tile origin
 * (FLEETDESK_MAP_TILE_ORIGIN). With no source, or no internet, the shipped
 * province basemap remains under the (transparent) failed tiles.
 */
import type { Datum } from './gcj02';

export interface TileSource {
  url: string;
  datum: Datum;
  subdomains: string;
  maxZoom: number;
  attribution: string;
}

/** Hosts whose tiles are drawn in GCJ-02 (the law requires it of Chinese providers). */
const GCJ02_HOSTS = ['autonavi.com', 'amap.com', 'gtimg.com', 'qq.com', 'tianditu.gov.cn'];
const DEFAULT_MAX_ZOOM = 18;

export type TileEnv = Partial<Record<'VITE_MAP_TILE_URL' | 'VITE_MAP_TILE_DATUM' | 'VITE_MAP_TILE_SUBDOMAINS' | 'VITE_MAP_TILE_MAX_ZOOM' | 'VITE_MAP_TILE_ATTRIBUTION', string>>;

/** The configured source, or undefined for the basemap alone. A template without {x} {y} {z} is ignored. */
export function tileSourceFrom(env: TileEnv): TileSource | undefined {
  const url = (env.VITE_MAP_TILE_URL ?? '').trim();
  if (!url || !['{x}', '{y}', '{z}'].every((p) => url.includes(p))) return undefined;
  const declared = (env.VITE_MAP_TILE_DATUM ?? '').trim().toLowerCase();
  // Tianditu's own layers are CGCS2000 (≈ WGS-84); only its explicit GCJ layers are not, so say so in the env.
  const guessed: Datum = GCJ02_HOSTS.some((h) => url.includes(h)) && !url.includes('tianditu') ? 'gcj02' : 'wgs84';
  const datum: Datum = declared === 'gcj02' || declared === 'wgs84' ? declared : guessed;
  const maxZoom = Number(env.VITE_MAP_TILE_MAX_ZOOM);
  return {
    url,
    datum,
    subdomains: (env.VITE_MAP_TILE_SUBDOMAINS ?? '').trim() || 'abc',
    maxZoom: Number.isInteger(maxZoom) && maxZoom > 0 && maxZoom <= 22 ? maxZoom : DEFAULT_MAX_ZOOM,
    attribution: (env.VITE_MAP_TILE_ATTRIBUTION ?? '').trim(),
  };
}

/** The source of this build. */
export const configuredTileSource = (): TileSource | undefined => tileSourceFrom(import.meta.env as TileEnv);
