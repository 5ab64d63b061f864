import { useMutation, useQueryClient } from '@tanstack/react-query';
import dayjs, { type Dayjs } from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, paths } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { timeFilter } from '../components/query';
import { SHARED_TEMPERATURE_PATH } from '../paths';

export type TemperatureVehicle = components['schemas']['TemperatureVehicleBody'];
export type TemperatureThreshold = components['schemas']['TemperatureThresholdBody'];
export type TemperatureAlarm = components['schemas']['TemperatureAlarmBody'];
export type TemperatureReading = components['schemas']['TemperatureReadingBody'];
export type TemperatureShare = components['schemas']['TemperatureShareBody'];
export type SharedTemperature = components['schemas']['SharedTemperatureBody'];
export type TemperatureVehicleQuery = NonNullable<paths['/api/v1/temperature/vehicles']['get']['parameters']['query']>;
export type TemperatureAlarmQuery = NonNullable<paths['/api/v1/temperature/alarms']['get']['parameters']['query']>;
export type TemperatureShareQuery = NonNullable<paths['/api/v1/temperature/shares']['get']['parameters']['query']>;

/** The chart covers at most this many days (the server refuses more). */
export const MAX_SERIES_DAYS = 7;
/** A share link lives at most this many days. */
export const MAX_SHARE_DAYS = 30;

export const TEMPERATURE_KEY = ['temperature'] as const;
export const TEMPERATURE_VEHICLES_KEY = [...TEMPERATURE_KEY, 'vehicles'] as const;
export const TEMPERATURE_ALARMS_KEY = [...TEMPERATURE_KEY, 'alarms'] as const;
export const TEMPERATURE_SHARES_KEY = [...TEMPERATURE_KEY, 'shares'] as const;

export function temperatureVehicleQuery(filters: ListFilters, page: number, size: number): TemperatureVehicleQuery {
  return {
    page,
    size,
    plateSearch: oneOf(filters, 'plateSearch') || undefined,
    orgIds: manyOf(filters, 'orgIds'),
    alarmOnly: oneOf(filters, 'alarmOnly') === 'true' ? true : undefined,
  };
}

export function temperatureAlarmQuery(filters: ListFilters, page: number, size: number): TemperatureAlarmQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    from: timeFilter(filters, 'from'),
    to: timeFilter(filters, 'to'),
    openOnly: oneOf(filters, 'openOnly') === 'true' ? true : undefined,
  };
}

export function temperatureShareQuery(vehicleId: string | undefined) {
  return (_filters: ListFilters, page: number, size: number): TemperatureShareQuery => ({ page, size, vehicleId });
}

export const listTemperatureVehicles = (query: TemperatureVehicleQuery) => api.get('/api/v1/temperature/vehicles', { params: { query } });
export const listTemperatureAlarms = (query: TemperatureAlarmQuery) => api.get('/api/v1/temperature/alarms', { params: { query } });
export const listTemperatureShares = (query: TemperatureShareQuery) => api.get('/api/v1/temperature/shares', { params: { query } });

export const temperatureSeries = (vehicleId: string, from: Dayjs, to: Dayjs) =>
  api.get('/api/v1/temperature/vehicles/{vehicleId}/series', { params: { path: { vehicleId }, query: { from: from.format(), to: to.format(), maxPoints: 500 } } });

/** A probe's thresholds (the gateway's form) for one vehicle, whose id goes in the path. */
export type ThresholdInput = components['schemas']['TemperatureThresholdForm'] & { vehicleId: string };

export function useSetThreshold() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ vehicleId, ...body }: ThresholdInput) => api.put('/api/v1/temperature/vehicles/{vehicleId}/thresholds', { params: { path: { vehicleId } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: TEMPERATURE_KEY }),
  });
}

/** A share link to create (the gateway's form), sent once under its idempotency key. */
export type ShareInput = components['schemas']['TemperatureShareForm'] & { idempotencyKey: string };

export function useCreateShare() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ idempotencyKey, ...body }: ShareInput) => api.post('/api/v1/temperature/shares', { body, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: TEMPERATURE_SHARES_KEY }),
  });
}

export function useRevokeShare() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (shareId: string) => api.post('/api/v1/temperature/shares/{shareId}/revoke', { params: { path: { shareId } } }),
    onSuccess: () => client.invalidateQueries({ queryKey: TEMPERATURE_SHARES_KEY }),
  });
}

/** The band of a probe: its own, else the vehicle's (probe 0). */
export function bandOf(thresholds: readonly TemperatureThreshold[], probe: number): TemperatureThreshold | undefined {
  return thresholds.find((t) => t.probeNo === probe) ?? thresholds.find((t) => t.probeNo === 0);
}

/** Outside its band (a probe without a band never is). */
export function outOfBand(celsius: number, band: TemperatureThreshold | undefined): boolean {
  return !!band && (celsius < band.minCelsius || celsius > band.maxCelsius);
}

/** Why a chart range is refused, or '' when it is fine. */
export function seriesRangeError(from: Dayjs | null | undefined, to: Dayjs | null | undefined): '' | 'required' | 'order' | 'tooLong' {
  if (!from || !to) return 'required';
  if (!from.isBefore(to)) return 'order';
  if (to.diff(from, 'second') > MAX_SERIES_DAYS * 86_400) return 'tooLong';
  return '';
}

/** What a share's state is now. */
export function shareState(share: Pick<TemperatureShare, 'expiresAt' | 'revokedAt'>, now = dayjs()): 'active' | 'expired' | 'revoked' {
  if (share.revokedAt) return 'revoked';
  return dayjs(share.expiresAt).isAfter(now) ? 'active' : 'expired';
}

/** The link a consignee opens. */
export const shareLink = (origin: string, token: string) => `${origin}${SHARED_TEMPERATURE_PATH.replace(':token', encodeURIComponent(token))}`;

/** What a share link shows; quiet, since its page explains every failure itself. */
export const sharedTemperature = (token: string) =>
  api.get('/api/v1/public/temperature/{token}', { params: { path: { token } }, silent: true, noRedirect: true });

/** Expiry days a share may take (after now, at most 30 days ahead). */
export const expiryAllowed = (day: Dayjs, now = dayjs()) => day.isAfter(now) && !day.isAfter(now.add(MAX_SHARE_DAYS, 'day'));

/** Chart lines per probe (oldest first) and the band lines. */
export function seriesByProbe(readings: readonly TemperatureReading[]): Map<number, [string, number][]> {
  const out = new Map<number, [string, number][]>();
  for (const r of readings) {
    const line = out.get(r.probeNo) ?? [];
    line.push([r.recordTime, r.celsius]);
    out.set(r.probeNo, line);
  }
  return new Map([...out.entries()].sort(([a], [b]) => a - b));
}
