import type { Dayjs } from 'dayjs';
import { useMemo } from 'react';
import { Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { MONTH_FORMAT } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { defaultMonths, listMonthlyLogs, MAX_RANGE_MONTHS, monthlyLogQuery, monthRangeTooLong, MONTHLY_LOGS_KEY, type MonthlyLog, type MonthlyLogPage, type MonthlyLogQuery } from '../api/operation-logs';
import { hoursMinutes, km, kwh, totalsRow } from '../components/figures';
import { SafetyReportLink } from '../components/safety-report-link';

/**
 * 运营月报 (monthlyLog, oss:asset:report): each vehicle's months over at most 12
 * months (the current one by default), mileage first, with the totals over
 * every matching month as the summary row.
 */
export default function MonthlyLogPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();

  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'month',
        label: t('reports:fields.month'),
        type: 'rangeMonth',
        keys: { start: 'startMonth', end: 'endMonth' },
        initValue: defaultMonths(),
        unReset: true,
        rules: [
          {
            // The bar itself refuses an incomplete or reversed range.
            validator: (_: unknown, value: [Dayjs | null, Dayjs | null] | null | undefined) =>
              monthRangeTooLong(value?.[0]?.format(MONTH_FORMAT), value?.[1]?.format(MONTH_FORMAT))
                ? Promise.reject(new Error(t('reports:filter.monthsTooLong', { months: MAX_RANGE_MONTHS })))
                : Promise.resolve(),
          },
        ],
      },
      { prop: 'orgIds', label: t('reports:fields.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('reports:fields.plateNumber'), type: 'batchInput', width: 220 },
    ],
    [t, orgs],
  );
  const list = useListPage<MonthlyLog, MonthlyLogQuery, MonthlyLogPage>({ fields, queryKey: MONTHLY_LOGS_KEY, toQuery: monthlyLogQuery, fetch: listMonthlyLogs });

  // Charged energy and charges from energy's settled sessions; energy used
  // from the SOC's drop times the battery capacity, '-' when unknown.
  const columns: ListColumn<MonthlyLog>[] = [
    { prop: 'plateNumber', label: t('reports:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'month', label: t('reports:fields.month'), width: 100 },
    { prop: 'mileageM', label: t('reports:fields.mileage'), width: 110, align: 'right', formatter: (row) => km(row.mileageM) },
    { prop: 'drivingSeconds', label: t('reports:fields.drivingTime'), width: 100, align: 'right', formatter: (row) => hoursMinutes(row.drivingSeconds) },
    { prop: 'orgName', label: t('reports:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'operatingDays', label: t('reports:fields.operatingDays'), width: 100, align: 'right', formatter: (row) => row.operatingDays },
    { prop: 'avgDailyMileageM', label: t('reports:fields.avgDailyMileage'), width: 130, align: 'right', formatter: (row) => km(row.avgDailyMileageM) },
    { prop: 'idleSeconds', label: t('reports:fields.idleTime'), width: 100, align: 'right', formatter: (row) => hoursMinutes(row.idleSeconds) },
    { prop: 'energyConsumedWh', label: t('reports:fields.energyUsed'), width: 110, align: 'right', formatter: (row) => kwh(row.energyConsumedWh) },
    { prop: 'energyPer100kmWh', label: t('reports:fields.energyPer100km'), width: 140, align: 'right', formatter: (row) => (row.energyConsumedWh == null || row.mileageM <= 0 ? '-' : kwh(row.energyPer100kmWh)) },
    { prop: 'energyChargedWh', label: t('reports:fields.energyCharged'), width: 110, align: 'right', formatter: (row) => kwh(row.energyChargedWh) },
    { prop: 'chargeCount', label: t('reports:fields.chargeCount'), width: 90, align: 'right', formatter: (row) => row.chargeCount },
    { prop: 'alarmCount', label: t('reports:fields.alarmCount'), width: 100, align: 'right', formatter: (row) => row.alarmCount },
  ];

  const exportFilters = { ...list.query, page: undefined, size: undefined };
  return (
    <ListPage<MonthlyLog>
      testId="monthly-log-list"
      toolbar={
        <Space>
          <SafetyReportLink />
          <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/reports/monthly-logs/export', { ...options, params: { query: exportFilters } })} />
        </Space>
      }
      {...list.listProps}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'key', showIndex: true, columns, scrollX: 1550, summary: totalsRow(list.data?.totals), ...list.tableProps }}
    />
  );
}
