import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import '../messages';
import { PAYMENTS_KEY, exportPayments, listPayments, paymentQuery, type BillPayment, type PaymentQuery } from '../api/finance';
import { PAYMENT_COLORS, PAYMENT_METHODS, PAYMENT_STATUSES, money } from '../components/labels';
import { CodeTag, P } from '../components/parts';

/**
 * 账单结算 (billSettlement, bill:settlement): every payment made on bills,
 * newest first, with the bills it settled, its method and state.
 */
export default function BillSettlementPage() {
  const { t } = useTranslation();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'paymentNo', label: t(`${P}pay.paymentNo`), type: 'input', width: 200 },
      { prop: 'methods', label: t(`${P}pay.method`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}paymentMethods`, PAYMENT_METHODS) },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}paymentStatuses`, PAYMENT_STATUSES) },
      { prop: 'createTime', label: t(`${P}pay.createTime`), type: 'daterange', keys: { start: 'createTimeStart', end: 'createTimeEnd' } },
    ],
    [t],
  );
  const list = useListPage<BillPayment, PaymentQuery>({ fields, queryKey: PAYMENTS_KEY, toQuery: paymentQuery, fetch: listPayments });
  const columns: ListColumn<BillPayment>[] = [
    { prop: 'paymentNo', label: t(`${P}pay.paymentNo`), width: 190, fixed: 'left' },
    { prop: 'method', label: t(`${P}pay.method`), width: 130, formatter: (row) => codeLabel(t, `${P}paymentMethods`, row.method) },
    { prop: 'status', label: t(`${P}common.status`), width: 100, render: (row) => <CodeTag code={row.status} labels="paymentStatuses" colors={PAYMENT_COLORS} /> },
    { prop: 'amountFen', label: t(`${P}pay.amount`), width: 130, align: 'right', formatter: (row) => money(row.amountFen) },
    { prop: 'couponDeductionFen', label: t(`${P}pay.couponDeduction`), width: 130, align: 'right', formatter: (row) => money(row.couponDeductionFen) },
    { prop: 'allocations', label: t(`${P}pay.bills`), width: 240, showOverflowTooltip: true, formatter: (row) => row.allocations.map((a) => a.billNo).join('、') },
    { prop: 'transactionNo', label: t(`${P}pay.transactionNo`), width: 200 },
    { prop: 'requestedBy', label: t(`${P}pay.requestedBy`), width: 120 },
    { prop: 'createTime', label: t(`${P}pay.createTime`), width: 170, formatter: (row) => formatTime(row.createTime) },
    { prop: 'paidTime', label: t(`${P}pay.paidTime`), width: 170, formatter: (row) => formatTime(row.paidTime) },
  ];
  return (
    <ListPage<BillPayment>
      testId="finance-payment-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportPayments(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1600, ...list.tableProps }}
    />
  );
}
