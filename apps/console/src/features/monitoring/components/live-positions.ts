/** Pure rules of the live map: what status a vehicle shows now, which fix wins, counts and plate search. */
import type { LatestPosition, PositionStatus } from '../api/positions';

export const POSITION_STATUSES: readonly PositionStatus[] = ['driving', 'parked', 'charging', 'offline', 'alarm'];

/** The server's rule (contract): a fix older than 10 minutes is offline. The client applies it too, since a silent vehicle sends no event. */
export const OFFLINE_AFTER_MS = 10 * 60 * 1000;

const time = (text: string | undefined) => {
  const t = text ? Date.parse(text) : NaN;
  return Number.isFinite(t) ? t : NaN;
};

export function effectiveStatus(p: LatestPosition, now: number): PositionStatus {
  const t = time(p.fixTime);
  if (!Number.isFinite(t) || now - t > OFFLINE_AFTER_MS) return 'offline';
  return p.status ?? 'offline';
}

/**
 * Puts a streamed fix into the live set. An older fix than the one held (a
 * blind-zone upload arriving late) does not move the vehicle back. Vehicles not
 * yet known are added only when `acceptNew` (no organisation filter is on).
 * Returns whether anything changed.
 */
export function applyPosition(store: Map<string, LatestPosition>, p: LatestPosition, acceptNew: boolean): boolean {
  if (!p?.vehicleId || !Number.isFinite(p.lat) || !Number.isFinite(p.lng)) return false;
  const held = store.get(p.vehicleId);
  if (!held && !acceptNew) return false;
  if (held && time(held.fixTime) > time(p.fixTime)) return false;
  store.set(p.vehicleId, p);
  return true;
}

export type StatusCounts = Record<PositionStatus | 'total', number>;

export function countStatuses(list: readonly LatestPosition[], now: number): StatusCounts {
  const counts: StatusCounts = { total: list.length, driving: 0, parked: 0, charging: 0, offline: 0, alarm: 0 };
  for (const p of list) counts[effectiveStatus(p, now)]++;
  return counts;
}

/** Vehicles whose plate contains the text (case and spaces ignored), exact match first, at most `limit`. */
export function searchPlates(list: readonly LatestPosition[], text: string, limit = 20): LatestPosition[] {
  const q = text.replace(/\s+/g, '').toUpperCase();
  if (!q) return [];
  const found = list.filter((p) => p.plateNumber.toUpperCase().includes(q));
  found.sort((a, b) => Number(b.plateNumber.toUpperCase() === q) - Number(a.plateNumber.toUpperCase() === q) || a.plateNumber.localeCompare(b.plateNumber));
  return found.slice(0, limit);
}
