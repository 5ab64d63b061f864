/** Charging behaviour analysis (behaviorAnalyze): the analysis of a filter and its vehicles. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { DATE_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { CHARGING_KEY } from './keys';

export type BehaviorAnalysis = components['schemas']['ChargingBehaviorAnalysisBody'];
export type BehaviorFigures = components['schemas']['ChargingBehaviorFiguresBody'];
export type OrgBehavior = components['schemas']['OrgChargingBehaviorBody'];
export type VehicleBehavior = components['schemas']['VehicleChargingBehaviorBody'];
export type BehaviorQuery = NonNullable<operations['get_charging_behavior_analysis']['parameters']['query']>;
export type VehicleBehaviorQuery = NonNullable<operations['list_vehicle_charging_behaviors']['parameters']['query']>;

export const BEHAVIOR_KEY = [...CHARGING_KEY, 'behavior'] as const;

/** Longest start range the analysis takes (the service refuses more). */
export const BEHAVIOR_MAX_DAYS = 92;

/** The page opens on the last 30 days. */
export function defaultBehaviorRange(today = dayjs()): [string, string] {
  return [today.subtract(29, 'day').format(DATE_FORMAT), today.format(DATE_FORMAT)];
}

/** Why a start range cannot be analysed: none chosen, or longer than {@link BEHAVIOR_MAX_DAYS} days (both ends included). */
export function rangeProblem(start: string | undefined, end: string | undefined): 'required' | 'tooLong' | undefined {
  if (!start || !end) return 'required';
  const days = dayjs(end).startOf('day').diff(dayjs(start).startOf('day'), 'day') + 1;
  return days > BEHAVIOR_MAX_DAYS ? 'tooLong' : undefined;
}

/** The analysis' filter from the page's URL filters. */
export function behaviorQuery(filters: ListFilters): BehaviorQuery {
  return {
    orgId: manyOf(filters, 'orgId'),
    plate: manyOf(filters, 'plate'),
    startTimeStart: oneOf(filters, 'startTimeStart') || undefined,
    startTimeEnd: oneOf(filters, 'startTimeEnd') || undefined,
  };
}

export function vehicleBehaviorQuery(filters: ListFilters, page: number, size: number): VehicleBehaviorQuery {
  return { page, size, ...behaviorQuery(filters) };
}

export const listVehicleBehaviors = (query: VehicleBehaviorQuery) => api.get('/api/v1/charging/behavior/vehicles', { params: { query } });

/** The analysis of `query`; not asked while its range is unusable. */
export function useBehaviorAnalysis(query: BehaviorQuery) {
  return useQuery({
    queryKey: [...BEHAVIOR_KEY, 'analysis', query],
    queryFn: () => api.get('/api/v1/charging/behavior', { params: { query } }),
    enabled: !rangeProblem(query.startTimeStart, query.startTimeEnd),
    placeholderData: keepPreviousData,
  });
}
