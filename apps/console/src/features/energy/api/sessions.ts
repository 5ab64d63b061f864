/** Charging sessions and plate scans (consumeRecord, scanPlateRecord). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { DATE_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { codesOf, SCAN_RESULTS, SESSION_STATUSES, START_METHODS } from '../components/labels';
import { CHARGING_KEY } from './keys';

export type ChargingSession = components['schemas']['ChargingSessionBody'];
export type SessionPage = components['schemas']['ChargingSessionPage'];
export type PlateScanRecord = components['schemas']['PlateScanRecordBody'];
export type SessionQuery = NonNullable<operations['list_charging_sessions']['parameters']['query']>;
export type PlateScanQuery = NonNullable<operations['list_plate_scan_records']['parameters']['query']>;
export type Station = components['schemas']['StationBody'];

export const SESSIONS_KEY = [...CHARGING_KEY, 'sessions'] as const;
export const PLATE_SCANS_KEY = [...CHARGING_KEY, 'plate-scans'] as const;

/** Longest start-time range the session and scan lists take. */
export const MAX_RANGE_DAYS = 92;

/** The lists open on the last 30 days (they need a range). */
export function defaultRange(today = dayjs()): [string, string] {
  return [today.subtract(29, 'day').format(DATE_FORMAT), today.format(DATE_FORMAT)];
}

/** While a session charges its figures move: poll every 10 s. */
export const pollWhileCharging = (rows: readonly ChargingSession[] | undefined): number | false => (rows?.some((r) => r.status === 'CHARGING') ? 10_000 : false);

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

export function sessionQuery(filters: ListFilters, page: number, size: number): SessionQuery {
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    cardNo: manyOf(filters, 'cardNo'),
    orgId: manyOf(filters, 'orgId'),
    stationId: text(filters, 'stationId'),
    sessionNo: text(filters, 'sessionNo'),
    status: codesOf(manyOf(filters, 'status'), SESSION_STATUSES),
    startMethod: codesOf(manyOf(filters, 'startMethod'), START_METHODS),
    startTimeStart: text(filters, 'startTimeStart'),
    startTimeEnd: text(filters, 'startTimeEnd'),
    statementMonth: text(filters, 'statementMonth'),
  };
}

export const listSessions = (query: SessionQuery) => api.get('/api/v1/charging/sessions', { params: { query } });

export function useSession(id: string | undefined) {
  return useQuery({
    queryKey: [...SESSIONS_KEY, 'detail', id ?? ''],
    queryFn: () => api.get('/api/v1/charging/sessions/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

export function plateScanQuery(filters: ListFilters, page: number, size: number): PlateScanQuery {
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    orgId: manyOf(filters, 'orgId'),
    stationId: text(filters, 'stationId'),
    result: codesOf(manyOf(filters, 'result'), SCAN_RESULTS),
    scanTimeStart: text(filters, 'scanTimeStart'),
    scanTimeEnd: text(filters, 'scanTimeEnd'),
  };
}

export const listPlateScans = (query: PlateScanQuery) => api.get('/api/v1/charging/plate-scans', { params: { query } });

/** Stations whose name or address contains `keyword` (pickers). */
export function useStationOptions(keyword: string, enabled = true) {
  return useQuery({
    queryKey: [...CHARGING_KEY, 'station-options', keyword],
    queryFn: async () => {
      const answer = await api.get('/api/v1/charging/stations', { params: { query: { page: 1, size: 50, keyword: keyword || undefined } }, silent: true });
      return answer.list.map((s) => ({ value: s.id, label: s.cityName ? `${s.name}（${s.cityName}）` : s.name }));
    },
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    enabled,
  });
}
