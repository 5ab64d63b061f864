import { Button, Space, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { useAccess } from '@/lib/auth';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import '../messages';
import { BILLS_KEY, billQuery, exportBills, listBills, type Bill, type BillQuery } from '../api/finance';
import { BILL_COLORS, BILL_KINDS, BILL_STATUSES, INVOICE_STATES, money, withId } from '../components/labels';
import { CodeTag, P } from '../components/parts';

/** A bill the B2B page pay takes: confirmed, money outstanding. */
export const payable = (bill: Bill) => (bill.status === 'UNPAID' || bill.status === 'PARTIALLY_PAID') && bill.outstandingFen > 0;

/**
 * 账单列表 (billList, bill:biz:pageInfo): the enterprise's bills newest first
 * with the totals of the filter; a B2B enterprise holding page pay pays an
 * outstanding bill from here.
 */
export default function BillListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { principal } = useAccess();
  const canPay = !!principal?.flags.isB2B && principal.permissions.has('oss:bill:pagepay');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'billNos', label: t(`${P}bill.billNo`), type: 'batchInput', width: 200 },
      { prop: 'kinds', label: t(`${P}bill.kind`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}billKinds`, BILL_KINDS) },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}billStatuses`, BILL_STATUSES) },
      { prop: 'invoiceStates', label: t(`${P}bill.invoiceState`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}invoiceStates`, INVOICE_STATES) },
      {
        prop: 'overdue',
        label: t(`${P}bill.overdue`),
        type: 'select',
        width: 140,
        options: [
          { value: 'true', label: t(`${P}common.yes`) },
          { value: 'false', label: t(`${P}common.no`) },
        ],
      },
      { prop: 'period', label: t(`${P}bill.period`), type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' }, notVerify: true },
    ],
    [t],
  );
  const list = useListPage<Bill, BillQuery, Awaited<ReturnType<typeof listBills>>>({ fields, queryKey: BILLS_KEY, toQuery: billQuery, fetch: listBills });
  const columns: ListColumn<Bill>[] = [
    { prop: 'billNo', label: t(`${P}bill.billNo`), width: 180, fixed: 'left' },
    { prop: 'title', label: t(`${P}bill.title`), width: 220, showOverflowTooltip: true },
    { prop: 'kind', label: t(`${P}bill.kind`), width: 120, formatter: (row) => codeLabel(t, `${P}billKinds`, row.kind) },
    { prop: 'orgName', label: t(`${P}common.org`), width: 160, showOverflowTooltip: true },
    { prop: 'period', label: t(`${P}bill.period`), width: 100 },
    { prop: 'payableFen', label: t(`${P}bill.payable`), width: 130, align: 'right', formatter: (row) => money(row.payableFen) },
    { prop: 'paidFen', label: t(`${P}bill.paid`), width: 130, align: 'right', formatter: (row) => money(row.paidFen) },
    { prop: 'outstandingFen', label: t(`${P}bill.outstanding`), width: 130, align: 'right', formatter: (row) => money(row.outstandingFen) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="billStatuses" colors={BILL_COLORS} /> },
    {
      prop: 'overdue',
      label: t(`${P}bill.overdue`),
      width: 110,
      render: (row) => (row.overdue ? <Typography.Text type="danger">{t(`${P}bill.overdueDays`, { days: row.overdueDays })}</Typography.Text> : t(`${P}common.no`)),
    },
    { prop: 'dueTime', label: t(`${P}bill.dueTime`), width: 120, formatter: (row) => formatTime(row.dueTime, '{y}-{m}-{d}') },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 140,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" data-testid="bill-view" onClick={() => navigate(withId('billDetail', row.id))}>
            {t(`${P}common.detail`)}
          </Button>
          {canPay && payable(row) && (
            <Button type="link" size="small" data-testid="bill-pay" onClick={() => navigate(withId('billPay', row.id))}>
              {t(`${P}pay.pay`)}
            </Button>
          )}
        </Space>
      ),
    },
  ];
  const totals = list.data?.totals;
  return (
    <ListPage<Bill>
      testId="finance-bill-list"
      {...list.listProps}
      toolbar={
        <Space>
          <ExportButton startExport={(options) => exportBills(list.query, options)} />
          <Typography.Text data-testid="bill-totals">
            {t(`${P}bill.totals`, { payable: money(totals?.payableFen ?? 0), paid: money(totals?.paidFen ?? 0), outstanding: money(totals?.outstandingFen ?? 0) })}
          </Typography.Text>
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1700, ...list.tableProps }}
    />
  );
}
