/**
 * Track playback as pure state: the position is a fractional index into the
 * fixes (oldest first), so playback moves along the route at an even pace
 * whatever the gaps between fixes; scrubbing sets the index; speeds multiply.
 */
import type { LatLng } from '@/components/map/gcj02';

export interface TrackPoint extends LatLng {
  t: string;
  speedKmh: number;
  heading: number;
  soc?: number | null;
}

export const PLAY_SPEEDS = [1, 2, 4, 8] as const;
export type PlaySpeed = (typeof PLAY_SPEEDS)[number];
/** Fixes passed per second at 1×. */
export const POINTS_PER_SECOND = 5;
export const MAX_RANGE_DAYS = 7;

export interface PlayerState {
  /** Fractional index into the fixes. */
  position: number;
  playing: boolean;
  speed: PlaySpeed;
}

export const initialPlayer = (): PlayerState => ({ position: 0, playing: false, speed: 1 });

/** Moves on by `elapsedMs` of wall time; stops at the last fix. */
export function advance(state: PlayerState, elapsedMs: number, count: number): PlayerState {
  if (!state.playing || count < 2) return state;
  const last = count - 1;
  const position = Math.min(last, state.position + (elapsedMs / 1000) * POINTS_PER_SECOND * state.speed);
  return { ...state, position, playing: position < last };
}

/** Play from the start again when at the end; pause otherwise toggles. */
export function togglePlay(state: PlayerState, count: number): PlayerState {
  if (state.playing) return { ...state, playing: false };
  const atEnd = state.position >= count - 1;
  return { ...state, playing: count > 1, position: atEnd ? 0 : state.position };
}

export function seek(state: PlayerState, position: number, count: number): PlayerState {
  return { ...state, position: Math.max(0, Math.min(Math.max(0, count - 1), position)) };
}

/** The index of the last fix at or before `time` (binary search over the sorted fixes); 0 before the first. */
export function indexAtTime(points: readonly Pick<TrackPoint, 't'>[], time: string): number {
  const target = Date.parse(time);
  let lo = 0;
  let hi = points.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (Date.parse(points[mid].t) <= target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Where the vehicle is at a fractional index: between two fixes, on the straight line between them. */
export function interpolate(points: readonly TrackPoint[], position: number): TrackPoint | undefined {
  if (!points.length) return undefined;
  const i = Math.max(0, Math.min(points.length - 1, Math.floor(position)));
  const a = points[i];
  const b = points[Math.min(points.length - 1, i + 1)];
  const f = Math.min(1, Math.max(0, position - i));
  if (f === 0 || a === b) return a;
  return { ...a, lat: a.lat + (b.lat - a.lat) * f, lng: a.lng + (b.lng - a.lng) * f };
}

/** What is wrong with a playback range (i18n key), or undefined. */
export function rangeProblem(from: Date | undefined, to: Date | undefined): 'rangeRequired' | 'rangeOrder' | 'rangeTooLong' | undefined {
  if (!from || !to) return 'rangeRequired';
  if (to.getTime() <= from.getTime()) return 'rangeOrder';
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) return 'rangeTooLong';
  return undefined;
}
