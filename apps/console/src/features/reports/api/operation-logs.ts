/** The daily and monthly operation logs (dailyLog, monthlyLog): a page of rows with the totals over every matching row. */
import dayjs from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { DATE_FORMAT, MONTH_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';

/** A row with its table key: a vehicle has one row per day (per month), so its id alone repeats. */
type Keyed<T> = T & { key: string };
type Answer<Row, Page> = Omit<Page, 'list'> & { list: Row[] };

export type DailyLog = Keyed<components['schemas']['DailyOperationLogBody']>;
export type MonthlyLog = Keyed<components['schemas']['MonthlyOperationLogBody']>;
export type DailyLogPage = Answer<DailyLog, components['schemas']['DailyOperationLogPage']>;
export type MonthlyLogPage = Answer<MonthlyLog, components['schemas']['MonthlyOperationLogPage']>;
export type LogTotals = components['schemas']['OperationLogTotalsBody'];
export type DailyLogQuery = NonNullable<operations['list_daily_operation_logs']['parameters']['query']>;
export type MonthlyLogQuery = NonNullable<operations['list_monthly_operation_logs']['parameters']['query']>;

export const REPORTS_KEY = ['reports'] as const;
export const DAILY_LOGS_KEY = [...REPORTS_KEY, 'daily-logs'] as const;
export const MONTHLY_LOGS_KEY = [...REPORTS_KEY, 'monthly-logs'] as const;

/** Longest day range of the daily log, longest month range of the monthly log (the service's limits). */
export const MAX_RANGE_DAYS = 92;
export const MAX_RANGE_MONTHS = 12;

/** The daily log opens on the last 7 days (it needs a range). */
export function defaultDays(today = dayjs()): [string, string] {
  return [today.subtract(6, 'day').format(DATE_FORMAT), today.format(DATE_FORMAT)];
}

/** The monthly log opens on the current month. */
export function defaultMonths(today = dayjs()): [string, string] {
  const month = today.format(MONTH_FORMAT);
  return [month, month];
}

/** Why a day range is refused ('required', 'tooLong'), or undefined when it is fine. */
export function dayRangeProblem(start: string | undefined, end: string | undefined): 'required' | 'tooLong' | undefined {
  if (!start || !end) return 'required';
  if (dayjs(end).startOf('day').diff(dayjs(start).startOf('day'), 'day') + 1 > MAX_RANGE_DAYS) return 'tooLong';
  return undefined;
}

/** Whether a month range spans more months than the monthly log takes (both ends included). */
export function monthRangeTooLong(start: string | undefined, end: string | undefined): boolean {
  if (!start || !end) return false;
  return dayjs(`${end}-01`).diff(dayjs(`${start}-01`), 'month') + 1 > MAX_RANGE_MONTHS;
}

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;
/** The filter bar writes a day range with times; a report counts whole days, so only the dates go. */
const day = (filters: ListFilters, key: string) => text(filters, key)?.slice(0, DATE_FORMAT.length);

export function dailyLogQuery(filters: ListFilters, page: number, size: number): DailyLogQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    reportDateStart: day(filters, 'reportDateStart'),
    reportDateEnd: day(filters, 'reportDateEnd'),
    operatingOnly: manyOf(filters, 'operatingOnly').includes('true') || undefined,
  };
}

export function monthlyLogQuery(filters: ListFilters, page: number, size: number): MonthlyLogQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    startMonth: text(filters, 'startMonth'),
    endMonth: text(filters, 'endMonth'),
  };
}

export async function listDailyLogs(query: DailyLogQuery): Promise<DailyLogPage> {
  const answer = await api.get('/api/v1/reports/daily-logs', { params: { query } });
  return { ...answer, list: answer.list.map((row) => ({ ...row, key: `${row.vehicleId}/${row.reportDate}` })) };
}

export async function listMonthlyLogs(query: MonthlyLogQuery): Promise<MonthlyLogPage> {
  const answer = await api.get('/api/v1/reports/monthly-logs', { params: { query } });
  return { ...answer, list: answer.list.map((row) => ({ ...row, key: `${row.vehicleId}/${row.month}` })) };
}
