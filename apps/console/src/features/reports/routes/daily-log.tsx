import { useMemo } from 'react';
import { Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { formatTimeIn } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { DAILY_LOGS_KEY, dailyLogQuery, dayRangeProblem, defaultDays, listDailyLogs, MAX_RANGE_DAYS, type DailyLog, type DailyLogPage, type DailyLogQuery } from '../api/operation-logs';
import { hoursMinutes, km, kmh, kwh, totalsRow } from '../components/figures';
import { reportDateField } from '../components/report-date-field';
import { SafetyReportLink } from '../components/safety-report-link';

/**
 * 运营日报 (dailyLog, oss:asset:report): each vehicle's Beijing days over at most
 * 92 days (the last 7 by default), mileage first, with the totals over every
 * matching day as the summary row. The ingest keeps the figures up to date.
 */
export default function DailyLogPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();

  const fields = useMemo<FilterField[]>(
    () => [
      reportDateField(t, defaultDays(), MAX_RANGE_DAYS),
      { prop: 'orgIds', label: t('reports:fields.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('reports:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'operatingOnly', label: '', type: 'checkbox', options: [{ value: 'true', label: t('reports:filter.operatingOnly') }] },
    ],
    [t, orgs],
  );
  const list = useListPage<DailyLog, DailyLogQuery, DailyLogPage>({ fields, queryKey: DAILY_LOGS_KEY, toQuery: dailyLogQuery, fetch: listDailyLogs });
  const rangeOk = !dayRangeProblem(list.query.reportDateStart, list.query.reportDateEnd);

  // Charged energy and charges come from energy's settled sessions (on the
  // day the charging ended); energy used is the SOC's drop times the battery
  // capacity, '-' when either is unknown.
  const columns: ListColumn<DailyLog>[] = [
    { prop: 'plateNumber', label: t('reports:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'reportDate', label: t('reports:fields.reportDate'), width: 110 },
    { prop: 'mileageM', label: t('reports:fields.mileage'), width: 110, align: 'right', formatter: (row) => km(row.mileageM) },
    { prop: 'drivingSeconds', label: t('reports:fields.drivingTime'), width: 100, align: 'right', formatter: (row) => hoursMinutes(row.drivingSeconds) },
    { prop: 'orgName', label: t('reports:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'driverName', label: t('reports:fields.driver'), width: 100, showOverflowTooltip: true },
    { prop: 'idleSeconds', label: t('reports:fields.idleTime'), width: 100, align: 'right', formatter: (row) => hoursMinutes(row.idleSeconds) },
    { prop: 'onlineSeconds', label: t('reports:fields.onlineTime'), width: 100, align: 'right', formatter: (row) => hoursMinutes(row.onlineSeconds) },
    { prop: 'tripCount', label: t('reports:fields.trips'), width: 90, align: 'right', formatter: (row) => row.tripCount },
    { prop: 'maxSpeedKmh', label: t('reports:fields.maxSpeed'), width: 130, align: 'right', formatter: (row) => kmh(row.maxSpeedKmh) },
    { prop: 'avgSpeedKmh', label: t('reports:fields.avgSpeed'), width: 130, align: 'right', formatter: (row) => kmh(row.avgSpeedKmh) },
    { prop: 'energyConsumedWh', label: t('reports:fields.energyUsed'), width: 110, align: 'right', formatter: (row) => kwh(row.energyConsumedWh) },
    { prop: 'energyChargedWh', label: t('reports:fields.energyCharged'), width: 110, align: 'right', formatter: (row) => kwh(row.energyChargedWh) },
    { prop: 'chargeCount', label: t('reports:fields.chargeCount'), width: 90, align: 'right', formatter: (row) => row.chargeCount },
    { prop: 'alarmCount', label: t('reports:fields.alarmCount'), width: 100, align: 'right', formatter: (row) => row.alarmCount },
    // The day is the date column's: the times show the Beijing clock only.
    { prop: 'firstStartTime', label: t('reports:fields.firstStart'), width: 100, formatter: (row) => formatTimeIn(row.firstStartTime, '{h}:{i}:{s}') },
    { prop: 'lastStopTime', label: t('reports:fields.lastStop'), width: 100, formatter: (row) => formatTimeIn(row.lastStopTime, '{h}:{i}:{s}') },
  ];

  const exportFilters = { ...list.query, page: undefined, size: undefined };
  return (
    <ListPage<DailyLog>
      testId="daily-log-list"
      toolbar={
        <Space>
          <SafetyReportLink />
          <ExportButton disabled={!rangeOk} startExport={(options: CallOptions) => api.post('/api/v1/reports/daily-logs/export', { ...options, params: { query: exportFilters } })} />
        </Space>
      }
      {...list.listProps}
      banner={<LoadErrorBanner error={rangeOk ? list.error : null} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'key', showIndex: true, columns, scrollX: 1900, summary: totalsRow(list.data?.totals), ...list.tableProps }}
    />
  );
}
