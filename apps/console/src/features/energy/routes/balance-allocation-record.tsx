import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { ALLOCATIONS_KEY, allocationQuery, listAllocations, type AllocationQuery, type BalanceAllocation } from '../api/accounts';
import { exportFilters } from '../api/keys';
import { ALLOCATION_DIRECTIONS, codeLabel, codeOptions } from '../components/labels';

/** 分配记录 (balanceAllocationRecord): every allocation and reclaim between accounts, newest first, with the balances after it. */
export default function BalanceAllocationRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'direction', label: t('energy:allocations.direction'), type: 'select', width: 160, options: codeOptions(t, 'direction', ALLOCATION_DIRECTIONS) },
      { prop: 'allocateTime', label: t('energy:allocations.time'), type: 'daterange', keys: { start: 'allocateTimeStart', end: 'allocateTimeEnd' } },
    ],
    [t, orgs],
  );
  const list = useListPage<BalanceAllocation, AllocationQuery>({ fields, queryKey: ALLOCATIONS_KEY, toQuery: allocationQuery, fetch: listAllocations });

  const columns: ListColumn<BalanceAllocation>[] = [
    { prop: 'allocateTime', label: t('energy:allocations.time'), width: 170, formatter: (row) => formatTime(row.allocateTime) },
    {
      prop: 'direction',
      label: t('energy:allocations.direction'),
      width: 90,
      render: (row) => <Tag color={row.direction === 'ALLOCATE' ? 'blue' : 'orange'}>{codeLabel(t, 'direction', row.direction)}</Tag>,
    },
    { prop: 'fromOrgName', label: t('energy:allocations.from'), width: 180, showOverflowTooltip: true },
    { prop: 'toOrgName', label: t('energy:allocations.to'), width: 180, showOverflowTooltip: true },
    { prop: 'amountFen', label: t('energy:allocations.amount'), width: 130, align: 'right', formatter: (row) => yuan(row.amountFen) },
    { prop: 'fromBalanceAfterFen', label: t('energy:allocations.fromAfter'), width: 150, align: 'right', formatter: (row) => yuan(row.fromBalanceAfterFen) },
    { prop: 'toBalanceAfterFen', label: t('energy:allocations.toAfter'), width: 150, align: 'right', formatter: (row) => yuan(row.toBalanceAfterFen) },
    { prop: 'operatorName', label: t('energy:common.operator'), width: 120 },
    { prop: 'remark', label: t('energy:common.remark'), minWidth: 160, showOverflowTooltip: true },
  ];

  return (
    <ListPage<BalanceAllocation>
      testId="allocation-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/allocations/export', { ...options, params: { query: exportFilters(list.query) } })} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1400, ...list.tableProps }}
    />
  );
}
