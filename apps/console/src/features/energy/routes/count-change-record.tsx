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
import { AMOUNT_CHANGES_KEY, amountChangeQuery, listAmountChanges, type AmountChangeQuery, type CardAmountChange } from '../api/cards';
import { exportFilters } from '../api/keys';
import { CHANGE_KINDS, codeLabel, codeOptions, signedChange } from '../components/labels';

/** 额度变更记录 (countChangeRecord): every change of a card's balance (top-ups, withdrawals, charging, refunds, cancellations), newest first. */
export default function CountChangeRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'cardNo', label: t('energy:fields.cardNo'), type: 'batchInput', width: 220 },
      { prop: 'plate', label: t('energy:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'kind', label: t('energy:changes.kind'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'changeKind', CHANGE_KINDS) },
      { prop: 'changeTime', label: t('energy:changes.time'), type: 'daterange', keys: { start: 'changeTimeStart', end: 'changeTimeEnd' } },
    ],
    [t, orgs],
  );
  const list = useListPage<CardAmountChange, AmountChangeQuery>({ fields, queryKey: AMOUNT_CHANGES_KEY, toQuery: amountChangeQuery, fetch: listAmountChanges });

  const columns: ListColumn<CardAmountChange>[] = [
    { prop: 'changeTime', label: t('energy:changes.time'), width: 170, formatter: (row) => formatTime(row.changeTime) },
    { prop: 'cardNo', label: t('energy:fields.cardNo'), width: 170 },
    { prop: 'plateNumber', label: t('energy:fields.plateNumber'), width: 110 },
    { prop: 'driverName', label: t('energy:fields.driver'), width: 100 },
    { prop: 'orgName', label: t('energy:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'kind', label: t('energy:changes.kind'), width: 110, render: (row) => <Tag>{codeLabel(t, 'changeKind', row.kind)}</Tag> },
    { prop: 'amountFen', label: t('energy:changes.amount'), width: 130, align: 'right', formatter: (row) => signedChange(row.kind, row.amountFen) },
    { prop: 'balanceBeforeFen', label: t('energy:changes.before'), width: 130, align: 'right', formatter: (row) => yuan(row.balanceBeforeFen) },
    { prop: 'balanceAfterFen', label: t('energy:changes.after'), width: 130, align: 'right', formatter: (row) => yuan(row.balanceAfterFen) },
    { prop: 'operatorName', label: t('energy:common.operator'), width: 110 },
    { prop: 'remark', label: t('energy:common.remark'), minWidth: 160, showOverflowTooltip: true },
  ];

  return (
    <ListPage<CardAmountChange>
      testId="amount-change-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/card-amount-changes/export', { ...options, params: { query: exportFilters(list.query) } })} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1600, ...list.tableProps }}
    />
  );
}
