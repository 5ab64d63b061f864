/**
 * The fence form's pure rules: geometry checks with their Chinese messages,
 * and form values ↔ the API's GeofenceInputBody.
 */
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import type { LatLng } from '@/components/map/gcj02';
import type { ActiveWindow, Geofence, GeofenceInput, GeofencePurpose, GeofenceShape } from '../api/geofences';

export const RADIUS_M = { min: 50, max: 100_000, default: 500 };
export const CORRIDOR_WIDTH_M = { min: 10, max: 5000, default: 100 };
export const SPEED_LIMIT_KMH = { min: 1, max: 200 };
export const DWELL_S = { min: 0, max: 86_400 };
/** Longest stay before an overstay alarm (a week); empty: no limit. */
export const MAX_STAY_MIN = { min: 1, max: 10_080 };
export const NAME_MAX = 50;

export interface FenceGeometry {
  shape: GeofenceShape;
  center?: LatLng;
  radiusM?: number;
  points: LatLng[];
  corridorWidthM?: number;
}

export interface WindowValues {
  weekdays: number[];
  range?: [Dayjs | null, Dayjs | null] | null;
}

export interface FenceFormValues {
  name: string;
  purpose: GeofencePurpose;
  orgId?: string;
  enabled: boolean;
  speedLimitKmh?: number | null;
  dwellSeconds?: number | null;
  maxStayMinutes?: number | null;
  alarmOnEnter: boolean;
  alarmOnExit: boolean;
  vehicleIds: string[];
  windows: WindowValues[];
}

/** i18n keys (monitoring:fence.rules.*) of what is wrong with the drawn shape; empty when it can be saved. */
export function geometryProblems(g: FenceGeometry): string[] {
  const problems: string[] = [];
  if (g.shape === 'circle') {
    if (!g.center) problems.push('centerRequired');
    if (g.radiusM === undefined || g.radiusM < RADIUS_M.min || g.radiusM > RADIUS_M.max) problems.push('radiusRange');
  } else if (g.shape === 'polygon') {
    if (g.points.length < 3) problems.push('polygonPoints');
  } else {
    if (g.points.length < 2) problems.push('corridorPoints');
    if (g.corridorWidthM === undefined || g.corridorWidthM < CORRIDOR_WIDTH_M.min || g.corridorWidthM > CORRIDOR_WIDTH_M.max) problems.push('widthRange');
  }
  return problems;
}

const HHMM = 'HH:mm';

/** An active window's times as the form holds them (today's date, the time that matters). */
function windowValues(w: ActiveWindow): WindowValues {
  const at = (hhmm: string) => {
    const [h, m] = hhmm.split(':').map(Number);
    return Number.isInteger(h) && Number.isInteger(m) ? dayjs().hour(h).minute(m).second(0) : null;
  };
  return { weekdays: [...w.weekdays], range: [at(w.start), at(w.end)] };
}

export function fenceFormValues(f: Geofence): { values: FenceFormValues; geometry: FenceGeometry } {
  return {
    values: {
      name: f.name,
      purpose: f.purpose ?? 'area',
      orgId: f.orgId || undefined,
      enabled: f.enabled,
      speedLimitKmh: f.speedLimitKmh ?? null,
      dwellSeconds: f.dwellSeconds,
      maxStayMinutes: f.maxStayMinutes || null,
      alarmOnEnter: f.alarmOnEnter,
      alarmOnExit: f.alarmOnExit,
      vehicleIds: f.vehicleIds,
      windows: f.activeWindows.map(windowValues),
    },
    geometry: {
      shape: f.shape ?? 'polygon',
      center: f.center ?? undefined,
      radiusM: f.radiusM ?? undefined,
      points: f.points,
      corridorWidthM: f.corridorWidthM ?? undefined,
    },
  };
}

/** The new form's defaults: a circle of 500 m for a sign-in point, a polygon otherwise. */
export function newFence(purpose: GeofencePurpose): { values: FenceFormValues; geometry: FenceGeometry } {
  return {
    values: { name: '', purpose, enabled: true, speedLimitKmh: null, dwellSeconds: 0, maxStayMinutes: null, alarmOnEnter: true, alarmOnExit: true, vehicleIds: [], windows: [] },
    geometry: purpose === 'signIn' ? { shape: 'circle', points: [], radiusM: RADIUS_M.default } : { shape: 'polygon', points: [], radiusM: RADIUS_M.default, corridorWidthM: CORRIDOR_WIDTH_M.default },
  };
}

/** Only the shape's own fields go out: a polygon sends no centre, a circle no points. */
export function fenceBody(values: FenceFormValues, g: FenceGeometry): GeofenceInput {
  const round = (p: LatLng) => ({ lat: Number(p.lat.toFixed(7)), lng: Number(p.lng.toFixed(7)) });
  return {
    name: values.name.trim(),
    shape: g.shape,
    purpose: values.purpose,
    center: g.shape === 'circle' && g.center ? round(g.center) : null,
    radiusM: g.shape === 'circle' ? (g.radiusM ?? null) : null,
    points: g.shape === 'circle' ? [] : g.points.map(round),
    corridorWidthM: g.shape === 'corridor' ? (g.corridorWidthM ?? null) : null,
    speedLimitKmh: values.speedLimitKmh ?? null,
    activeWindows: values.windows
      .filter((w) => w.range?.[0] && w.range?.[1])
      .map((w) => ({ weekdays: [...w.weekdays].sort((a, b) => a - b), start: (w.range?.[0] as Dayjs).format(HHMM), end: (w.range?.[1] as Dayjs).format(HHMM) })),
    dwellSeconds: values.dwellSeconds ?? 0,
    maxStayMinutes: values.maxStayMinutes ?? 0,
    alarmOnEnter: values.alarmOnEnter,
    alarmOnExit: values.alarmOnExit,
    vehicleIds: values.vehicleIds,
    orgId: values.orgId ?? '',
    enabled: values.enabled,
  };
}

/** The server names fields of the body; the form's names differ for a few. */
export function formFieldOf(serverField: string): string | undefined {
  if (['name', 'orgId', 'speedLimitKmh', 'dwellSeconds', 'maxStayMinutes', 'vehicleIds'].includes(serverField)) return serverField;
  if (serverField.startsWith('activeWindows')) return 'windows';
  return undefined;
}
