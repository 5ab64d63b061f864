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
  ORDERS_KEY,
  exportOrders,
  listOrders,
  orderQuery,
  useRepairConfig,
  type OrderQuery,
  type RepairOrder,
} from '../api/repairs';
import {
  ORDER_STATUSES,
  REPAIR_KINDS,
  REPAIR_PATHS,
} from '../components/repair-labels';
import { OrderStatusTag } from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 维修保养单 (maintainOrder, as:maintain): the fleet's repair orders, newest
 * first, filtered by plate, organisation, number, state, type, shop and
 * intake time, exported as xlsx. A new order opens orderCreate; a row opens
 * its detail (quote, completion) or, while QUOTED, the price confirmation.
 */
export default function MaintainOrderPage() {
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
        prop: 'statuses',
        label: t(`${P}.status`),
        type: 'select',
        multiple: true,
        width: 220,
        options: codeOptions(t, `${P}.statuses`, ORDER_STATUSES),
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
        prop: 'createTime',
        label: t(`${P}.createTime`),
        type: 'daterange',
        keys: { start: 'createTimeStart', end: 'createTimeEnd' },
      },
    ],
    [t, orgs, config.data],
  );
  const list = useListPage<
    RepairOrder,
    OrderQuery,
    Awaited<ReturnType<typeof listOrders>>
  >({
    fields,
    queryKey: ORDERS_KEY,
    toQuery: orderQuery,
    fetch: listOrders,
  });
  const open = (path: string, row: RepairOrder) =>
    navigate(`${path}?id=${encodeURIComponent(row.id)}`);

  const columns: ListColumn<RepairOrder>[] = [
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
      prop: 'status',
      label: m('status'),
      width: 110,
      render: (row) => <OrderStatusTag status={row.status} />,
    },
    {
      prop: 'quoteTotalFen',
      label: m('quoteTotal'),
      width: 110,
      align: 'right',
      formatter: (row) => (row.quoteTime ? yuan(row.quoteTotalFen) : '--'),
    },
    {
      prop: 'finalTotalFen',
      label: m('finalTotal'),
      width: 110,
      align: 'right',
      formatter: (row) => (row.completedTime ? yuan(row.finalTotalFen) : '--'),
    },
    {
      prop: 'faultDescription',
      label: m('fault'),
      width: 200,
      showOverflowTooltip: true,
    },
    { prop: 'orgName', label: m('org'), width: 140, showOverflowTooltip: true },
    {
      prop: 'createTime',
      label: m('createTime'),
      width: 170,
      formatter: (row) => formatTime(row.createTime),
    },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 160,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => open(REPAIR_PATHS.detail, row)}
            data-testid="repair-view"
          >
            {t('vehicleManagement:common.detail')}
          </Button>
          {row.status === 'QUOTED' && (
            <Button
              type="link"
              size="small"
              onClick={() => open(REPAIR_PATHS.price, row)}
              data-testid="repair-price"
            >
              {m('priceConfirm')}
            </Button>
          )}
        </Space>
      ),
    },
  ];

  return (
    <ListPage<RepairOrder>
      testId="repair-order-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button
            type="primary"
            onClick={() => navigate(REPAIR_PATHS.create)}
            data-testid="repair-create"
          >
            {m('create')}
          </Button>
          <ExportButton
            startExport={(options) => exportOrders(list.query, options)}
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
        scrollX: 1700,
        ...list.tableProps,
      }}
    />
  );
}
