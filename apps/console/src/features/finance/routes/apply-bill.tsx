import { Button, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { useAccess } from '@/lib/auth';
import { codeLabel, codeOptions } from '@/lib/codes';
import '../messages';
import { INVOICEABLE_KEY, invoiceableQuery, listInvoiceableBills, type Bill, type InvoiceableQuery } from '../api/finance';
import { BILL_KINDS, money, pathOf } from '../components/labels';
import { P } from '../components/parts';

/** The submit page of the caller's channel with the chosen bills. */
export const submitPath = (b2b: boolean, billNos: string[]) =>
  `${pathOf(b2b ? 'applyInvoiceB2BSubmit' : 'applyInvoiceSubmit')}?${billNos.map((n) => `billNos=${encodeURIComponent(n)}`).join('&')}`;

/**
 * 开票申请 (applyBill, as:invoice): the paid bills with an amount left to
 * invoice; the chosen ones go on to the application (applyInvoiceSubmit, or
 * its B2B variant for a B2B enterprise).
 */
export default function ApplyBillPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { principal } = useAccess();
  const [chosen, setChosen] = useState<Bill[]>([]);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'billNos', label: t(`${P}bill.billNo`), type: 'batchInput', width: 200 },
      { prop: 'kinds', label: t(`${P}bill.kind`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}billKinds`, BILL_KINDS) },
      { prop: 'period', label: t(`${P}bill.period`), type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' }, notVerify: true },
    ],
    [t],
  );
  const list = useListPage<Bill, InvoiceableQuery, Awaited<ReturnType<typeof listInvoiceableBills>>>({
    fields,
    queryKey: INVOICEABLE_KEY,
    toQuery: invoiceableQuery,
    fetch: listInvoiceableBills,
  });
  const columns: ListColumn<Bill>[] = [
    { prop: 'billNo', label: t(`${P}bill.billNo`), width: 180, fixed: 'left' },
    { prop: 'title', label: t(`${P}bill.title`), width: 220, showOverflowTooltip: true },
    { prop: 'kind', label: t(`${P}bill.kind`), width: 120, formatter: (row) => codeLabel(t, `${P}billKinds`, row.kind) },
    { prop: 'period', label: t(`${P}bill.period`), width: 100 },
    { prop: 'paidFen', label: t(`${P}bill.paid`), width: 130, align: 'right', formatter: (row) => money(row.paidFen) },
    { prop: 'invoicedFen', label: t(`${P}bill.invoiced`), width: 130, align: 'right', formatter: (row) => money(row.invoicedFen) },
    { prop: 'invoiceableFen', label: t(`${P}bill.invoiceable`), width: 130, align: 'right', formatter: (row) => money(row.invoiceableFen) },
  ];
  const chosenTotal = chosen.reduce((sum, b) => sum + b.invoiceableFen, 0);
  return (
    <ListPage<Bill>
      testId="finance-invoiceable-list"
      {...list.listProps}
      toolbar={
        <>
          <Typography.Text data-testid="invoiceable-total">
            {t(`${P}invoice.chosen`, { count: chosen.length, total: money(chosenTotal), all: money(list.data?.totalInvoiceableFen ?? 0) })}
          </Typography.Text>
          <Button
            type="primary"
            disabled={!chosen.length}
            data-testid="invoice-apply"
            onClick={() => navigate(submitPath(!!principal?.flags.isB2B, chosen.map((b) => b.billNo)))}
          >
            {t(`${P}invoice.apply`)}
          </Button>
        </>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{
        rowKey: 'id',
        columns,
        scrollX: 1100,
        selectable: true,
        selectedKeys: chosen.map((b) => b.id),
        onSelectionChange: (_, rows) => setChosen(rows),
        ...list.tableProps,
      }}
    />
  );
}
