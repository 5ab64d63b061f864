import { PlusOutlined } from '@ant-design/icons';
import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, cellText, formatTime } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import { listUsageRecords, usageListKey, usageQuery, type UsageRecord, type UsageRecordQuery } from '../api/usage-records';
import { UsageExportSlot } from '../components/toolbar-slots';
import { UsageDetailDrawer } from '../components/usage-detail-drawer';
import { UsageEndDialog } from '../components/usage-end-dialog';
import { UsageFormDialog } from '../components/usage-form-dialog';
import { isOpenRecord, kindHasEnd, usageStatusColor } from '../components/usage-labels';
import { USAGE_TERMS } from '../components/usage-terms';
import { codeLabel, codeOptions, USAGE_STATUSES, type UsageKind } from '../components/vehicle-labels';

const DATE = '{y}-{m}-{d}';

/**
 * One sub-page of 用车记录 (carUsedRecord, as:sys:car:used), by kind: 租赁记录
 * (RENT), 购车记录 (PURCHASE), 替换车记录 (REPLACEMENT), 以租代售记录
 * (RENT_TO_OWN). Lists the kind's records with batch plate and VIN search,
 * organisation, state, contract, counterparty and period filters; adds and
 * edits records (one open record per vehicle), ends open ones after
 * confirmation, and shows each with its operation log.
 */
export default function UsageRecordsPage({ kind }: { kind: UsageKind }) {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [editing, setEditing] = useState<{ id?: string } | null>(null);
  const [viewing, setViewing] = useState<string | null>(null);
  const [ending, setEnding] = useState<UsageRecord | null>(null);
  const u = (key: string) => t(`vehicles.usage.${key}`);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('vehicles.fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'vin', label: t('vehicles.fields.vin'), type: 'batchInput', width: 240 },
      { prop: 'orgId', label: t('vehicles.fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'status', label: t('vehicles.usage.status'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'usageStatuses', USAGE_STATUSES) },
      { prop: 'contractNo', label: t('vehicles.usage.contractNo'), type: 'input', width: 160, maxlength: 50 },
      { prop: 'counterparty', label: t('vehicles.usage.counterparty'), type: 'input', width: 180, maxlength: 100 },
      // Records running at some time within the range.
      { prop: 'period', label: t('vehicles.usage.period'), type: 'daterange', keys: { start: 'periodStart', end: 'periodEnd' } },
    ],
    [t, orgs],
  );
  const toQuery = useMemo(() => usageQuery(kind), [kind]);
  const queryKey = useMemo(() => usageListKey(kind), [kind]);
  const list = useListPage<UsageRecord, UsageRecordQuery>({ fields, queryKey, toQuery, fetch: listUsageRecords });

  const terms: ListColumn<UsageRecord>[] = USAGE_TERMS[kind].map((term) => ({
    key: term.key,
    label: t(term.label),
    width: term.width,
    align: term.align,
    render: (row: UsageRecord) => cellText(term.text(row, t)),
  }));
  const columns: ListColumn<UsageRecord>[] = [
    {
      prop: 'plateNumber',
      label: t('vehicles.fields.plateNumber'),
      width: 120,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => setViewing(row.id)} data-testid="usage-plate">
          {row.plateNumber}
        </Button>
      ),
    },
    // The status beside the plate: seen at 1440 px without scrolling.
    {
      prop: 'status',
      label: u('status'),
      width: 90,
      render: (row) => <Tag color={usageStatusColor(row.status)}>{codeLabel(t, 'usageStatuses', row.status) || BLANK}</Tag>,
    },
    { prop: 'vin', label: t('vehicles.fields.vin'), width: 190 },
    { prop: 'orgName', label: t('vehicles.fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'contractNo', label: u('contractNo'), width: 150 },
    { prop: 'counterparty', label: u('counterparty'), width: 180, showOverflowTooltip: true },
    { prop: 'startTime', label: u('startTime'), width: 120, formatter: (row) => formatTime(row.startTime, DATE) },
    ...(kindHasEnd(kind) ? [{ prop: 'endTime' as const, label: u('endTime'), width: 120, formatter: (row: UsageRecord) => formatTime(row.endTime, DATE) }] : []),
    ...terms,
    { prop: 'createTime', label: t('vehicles.fields.createTime'), width: 170, formatter: (row) => formatTime(row.createTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 160,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setViewing(row.id)} data-testid="usage-detail-open">
            {t('vehicles.detail')}
          </Button>
          {/* An ended record never changes again. */}
          {isOpenRecord(row.status) && (
            <>
              <Button type="link" size="small" onClick={() => setEditing({ id: row.id })} data-testid="usage-edit">
                {t('vehicles.edit')}
              </Button>
              <Button type="link" size="small" danger onClick={() => setEnding(row)} data-testid="usage-end">
                {u('end')}
              </Button>
            </>
          )}
        </Space>
      ),
    },
  ];

  return (
    <ListPage<UsageRecord>
      testId="usage-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})} data-testid="usage-add">
            {t(`vehicles.usage.addTitles.${kind}`)}
          </Button>
          <UsageExportSlot kind={kind} query={list.query} />
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1900, ...list.tableProps }}
    >
      <UsageFormDialog kind={kind} open={!!editing} recordId={editing?.id} onClose={() => setEditing(null)} />
      <UsageDetailDrawer
        kind={kind}
        recordId={viewing}
        onClose={() => setViewing(null)}
        // The dialogs open alone: a drawer opened after them would stack above them.
        onEdit={(id) => {
          setViewing(null);
          setEditing({ id });
        }}
        onEnd={(record) => {
          setViewing(null);
          setEnding(record);
        }}
      />
      <UsageEndDialog record={ending} onClose={() => setEnding(null)} />
    </ListPage>
  );
}
