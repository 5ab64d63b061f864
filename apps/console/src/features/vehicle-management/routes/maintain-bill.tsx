import { Button, Space, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import {
  BILLS_KEY,
  billQuery,
  exportBills,
  listBills,
  useRepairConfig,
  type BillQuery,
  type RepairBill,
} from '../api/repairs';
import { BILL_STATUSES, REPAIR_PATHS } from '../components/repair-labels';
import { BillStatusTag } from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 维修账单 (bill / maintainBill, as:maintain): the bills confirmed statements
 * raised, latest month first, with the amount and outstanding totals of the
 * filter, exported as xlsx; finance bills from their events.
 */
export default function MaintainBillPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const config = useRepairConfig();
  const m = (key: string) => t(`${P}.${key}`);
  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'shopId',
        label: t(`${P}.shop`),
        type: 'select',
        width: 240,
        options: (config.data?.suppliers ?? []).map((s) => ({
          value: s.id,
          label: s.name,
        })),
      },
      { prop: 'billNo', label: t(`${P}.billNo`), type: 'input', width: 180 },
      {
        prop: 'statuses',
        label: t(`${P}.status`),
        type: 'select',
        multiple: true,
        width: 200,
        options: codeOptions(t, `${P}.billStatuses`, BILL_STATUSES),
      },
      {
        prop: 'period',
        label: t(`${P}.period`),
        type: 'rangeMonth',
        keys: { start: 'startMonth', end: 'endMonth' },
        notVerify: true,
      },
    ],
    [t, config.data],
  );
  const list = useListPage<
    RepairBill,
    BillQuery,
    Awaited<ReturnType<typeof listBills>>
  >({ fields, queryKey: BILLS_KEY, toQuery: billQuery, fetch: listBills });
  const columns: ListColumn<RepairBill>[] = [
    { prop: 'billNo', label: m('billNo'), width: 170, fixed: 'left' },
    { prop: 'statementNo', label: m('statementNo'), width: 170 },
    {
      prop: 'shopName',
      label: m('shop'),
      width: 240,
      showOverflowTooltip: true,
    },
    { prop: 'period', label: m('period'), width: 100 },
    {
      prop: 'amountFen',
      label: m('billAmount'),
      width: 120,
      align: 'right',
      formatter: (row) => yuan(row.amountFen),
    },
    {
      prop: 'outstandingFen',
      label: m('outstanding'),
      width: 120,
      align: 'right',
      formatter: (row) => yuan(row.outstandingFen),
    },
    {
      prop: 'status',
      label: m('status'),
      width: 100,
      render: (row) => <BillStatusTag status={row.status} />,
    },
    {
      prop: 'dueTime',
      label: m('dueTime'),
      width: 120,
      formatter: (row) => formatTime(row.dueTime, '{y}-{m}-{d}'),
    },
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
              `${REPAIR_PATHS.billDetail}?id=${encodeURIComponent(row.id)}`,
            )
          }
          data-testid="bill-view"
        >
          {t('vehicleManagement:common.detail')}
        </Button>
      ),
    },
  ];
  return (
    <ListPage<RepairBill>
      testId="repair-bill-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Typography.Text data-testid="bill-totals">
            {t(`${P}.billTotals`, {
              amount: yuan(list.data?.totalAmountFen ?? 0),
              outstanding: yuan(list.data?.totalOutstandingFen ?? 0),
            })}
          </Typography.Text>
          <ExportButton
            startExport={(options) => exportBills(list.query, options)}
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
        scrollX: 1400,
        ...list.tableProps,
      }}
    />
  );
}
