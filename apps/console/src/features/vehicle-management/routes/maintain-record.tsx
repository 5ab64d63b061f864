import { Button, Space } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import {
  RECORDS_KEY,
  exportRecords,
  listRecords,
  recordQuery,
  useRepairConfig,
  type RecordQuery,
  type RepairRecord,
} from '../api/repairs';
import { REPAIR_KINDS, REPAIR_PATHS } from '../components/repair-labels';

const P = 'vehicleManagement:repair';

/**
 * 维修保养记录 (maintainRecord, as:maintain): the services completed orders
 * recorded, latest first, filtered by plate, organisation, order number,
 * type, shop and completion time, exported as xlsx.
 */
export default function MaintainRecordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const config = useRepairConfig();
  const m = (key: string) => t(`${P}.${key}`);
  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'plateNumbers',
        label: t(`${P}.plateNumber`),
        type: 'batchInput',
        width: 200,
      },
      { prop: 'orderNo', label: t(`${P}.orderNo`), type: 'input', width: 180 },
      {
        prop: 'orgIds',
        label: t(`${P}.org`),
        type: 'selectTree',
        multiple: true,
        width: 200,
        options: orgs as never,
      },
      {
        prop: 'kinds',
        label: t(`${P}.kind`),
        type: 'select',
        multiple: true,
        width: 180,
        options: codeOptions(t, `${P}.kinds`, REPAIR_KINDS),
      },
      {
        prop: 'shopId',
        label: t(`${P}.shop`),
        type: 'select',
        width: 220,
        options: (config.data?.suppliers ?? []).map((s) => ({
          value: s.id,
          label: s.name,
        })),
      },
      {
        prop: 'completedTime',
        label: t(`${P}.completedTime`),
        type: 'daterange',
        keys: { start: 'completedTimeStart', end: 'completedTimeEnd' },
      },
    ],
    [t, orgs, config.data],
  );
  const list = useListPage<
    RepairRecord,
    RecordQuery,
    Awaited<ReturnType<typeof listRecords>>
  >({
    fields,
    queryKey: RECORDS_KEY,
    toQuery: recordQuery,
    fetch: listRecords,
  });
  const columns: ListColumn<RepairRecord>[] = [
    { prop: 'orderNo', label: m('orderNo'), width: 170, fixed: 'left' },
    { prop: 'plateNumber', label: m('plateNumber'), width: 110 },
    {
      prop: 'kind',
      label: m('kind'),
      width: 100,
      formatter: (row) => codeLabel(t, `${P}.kinds`, row.kind),
    },
    {
      prop: 'shopName',
      label: m('shop'),
      width: 220,
      showOverflowTooltip: true,
    },
    {
      prop: 'completedTime',
      label: m('completedTime'),
      width: 170,
      formatter: (row) => formatTime(row.completedTime),
    },
    {
      prop: 'odometerM',
      label: m('completedOdometer'),
      width: 120,
      align: 'right',
      formatter: (row) => String(Math.round(row.odometerM / 1000)),
    },
    {
      prop: 'totalFen',
      label: m('finalTotal'),
      width: 110,
      align: 'right',
      formatter: (row) => yuan(row.totalFen),
    },
    {
      prop: 'items',
      label: m('items'),
      width: 240,
      showOverflowTooltip: true,
      formatter: (row) => row.items.map((i) => i.name).join('、'),
    },
    { prop: 'orgName', label: m('org'), width: 140, showOverflowTooltip: true },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 90,
      fixed: 'right',
      render: (row) => (
        <Button
          type="link"
          size="small"
          onClick={() =>
            navigate(
              `${REPAIR_PATHS.recordDetail}?id=${encodeURIComponent(row.id)}`,
            )
          }
          data-testid="record-view"
        >
          {t('vehicleManagement:common.detail')}
        </Button>
      ),
    },
  ];
  return (
    <ListPage<RepairRecord>
      testId="repair-record-list"
      {...list.listProps}
      toolbar={
        <Space>
          <ExportButton
            startExport={(options) => exportRecords(list.query, options)}
          />
        </Space>
      }
      banner={
        <LoadErrorBanner
          error={list.error}
          onRetry={() => void list.refetch()}
        />
      }
      table={{
        rowKey: 'id',
        showIndex: true,
        columns,
        scrollX: 1600,
        ...list.tableProps,
      }}
    />
  );
}
