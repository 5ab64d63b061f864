/**
 * The safety report (carSafetyReport): alarms per 100 km by alarm type, the
 * ranking by safety score (vehicles, drivers or organisations), the weekly
 * trend and the enterprise's weights. Scores are 100 minus the weighted
 * alarms per 100 km; a row under the minimum mileage has none (null).
 */
import dayjs from 'dayjs';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { DATE_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';

type Schemas = components['schemas'];
export type SafetyRow = Schemas['SafetyRankingRowBody'];
export type SafetySummary = Schemas['SafetySummaryBody'];
export type SafetyTypeRate = Schemas['SafetyTypeRateBody'];
export type SafetyWeek = Schemas['SafetyWeekBody'];
export type SafetyWeight = Schemas['SafetyWeightBody'];
export type SafetyDimension = NonNullable<SafetyRankingQuery['dimension']>;
export type AlarmType = Schemas['AlarmType'];
export type SafetyRankingQuery = NonNullable<operations['list_safety_ranking']['parameters']['query']>;
export type SafetyQuery = NonNullable<operations['get_safety_summary']['parameters']['query']>;
export type SafetyWeightsForm = Schemas['SafetyWeightsForm'];

export const SAFETY_KEY = ['reports', 'safety'] as const;
export const SAFETY_RANKING_KEY = [...SAFETY_KEY, 'ranking'] as const;
export const SAFETY_WEIGHTS_KEY = [...SAFETY_KEY, 'weights'] as const;

/** The ranking's tabs, in order. */
export const DIMENSIONS: readonly SafetyDimension[] = ['VEHICLE', 'DRIVER', 'ORG'];
/** URL parameters of the tab and the order (not filter-bar fields). */
export const DIMENSION_PARAM = 'dimension';
export const ORDER_PARAM = 'order';

/** Longest day range the service takes. */
export const MAX_SAFETY_DAYS = 366;

/** The report opens on the last 30 days. */
export function defaultSafetyDays(today = dayjs()): [string, string] {
  return [today.subtract(29, 'day').format(DATE_FORMAT), today.format(DATE_FORMAT)];
}

export function dimensionOf(value: string | null): SafetyDimension {
  return DIMENSIONS.find((d) => d === value) ?? 'VEHICLE';
}

/** The filter bar writes a day range with times; the report counts whole days. */
const dayOf = (filters: ListFilters, key: string) => oneOf(filters, key)?.slice(0, DATE_FORMAT.length) || undefined;

export function safetyQuery(filters: ListFilters): SafetyQuery {
  return {
    reportDateStart: dayOf(filters, 'reportDateStart'),
    reportDateEnd: dayOf(filters, 'reportDateEnd'),
    orgIds: manyOf(filters, 'orgIds'),
  };
}

export function rankingQuery(filters: ListFilters, page: number, size: number, dimension: SafetyDimension, bestFirst: boolean): SafetyRankingQuery {
  return { ...safetyQuery(filters), page, size, dimension, bestFirst: bestFirst || undefined };
}

/** The range and organisations of a ranking query (what the summary and trend ask). */
export function filterOf(query: SafetyRankingQuery): SafetyQuery {
  const { reportDateStart, reportDateEnd, orgIds } = query;
  return { reportDateStart, reportDateEnd, orgIds };
}

export const listSafetyRanking = (query: SafetyRankingQuery) => api.get('/api/v1/reports/safety/ranking', { params: { query } });
export const getSafetySummary = (query: SafetyQuery) => api.get('/api/v1/reports/safety/summary', { params: { query } });
export const getSafetyTrend = (query: SafetyQuery) => api.get('/api/v1/reports/safety/trend', { params: { query } });
export const getSafetyWeights = () => api.get('/api/v1/reports/safety/weights');
export const updateSafetyWeights = (body: SafetyWeightsForm) => api.put('/api/v1/reports/safety/weights', { body });

/** The ranking's filters, tab and order (not its paging) as an export job. */
export function exportSafetyRanking(query: SafetyRankingQuery, options: CallOptions) {
  const { page: _page, size: _size, ...rest } = query;
  return api.post('/api/v1/reports/safety/ranking/export', { ...options, params: { query: rest } });
}

/** A score as shown: one decimal, or -- without one. */
export const scoreText = (score: number | null | undefined) => (score === null || score === undefined ? '--' : score.toFixed(1));
