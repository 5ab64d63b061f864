import { Button, Form } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { newIdempotencyKey } from '@/lib/idempotency';
import type { ListFilters } from '@/lib/list-url';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { BILLS_KEY, billQuery, listBills, useCreateRefund, type Bill, type BillQuery } from '../api/finance';
import { BILL_COLORS, BILL_KINDS, REFUND_REASONS, money, type RefundReason } from '../components/labels';
import { CodeTag, P } from '../components/parts';
import { payeeFields, payeeOf } from '../components/payee-fields';

/** What a bill can still refund: paid minus refunded. */
export const refundable = (bill: Bill) => Math.max(0, bill.paidFen - bill.refundedFen);

/** Paid bills only: the refund list's query is the bill list's with paid states. */
const paidQuery = (filters: ListFilters, page: number, size: number): BillQuery => ({
  ...billQuery(filters, page, size),
  statuses: ['PAID', 'PARTIALLY_PAID'],
});

/**
 * 账单退款 (billRefund, as:refund): the paid bills with money left to refund
 * (`?billNos=` from a bill's detail); applying takes a reason, an amount up
 * to what is left and where the money goes. One Idempotency-Key per
 * application.
 */
export default function BillRefundPage() {
  const { t } = useTranslation();
  const [refunding, setRefunding] = useState<Bill>();
  const [key, setKey] = useState(newIdempotencyKey);
  const [form] = Form.useForm();
  const create = useCreateRefund();
  const filterFields = useMemo<FilterField[]>(
    () => [
      { prop: 'billNos', label: t(`${P}bill.billNo`), type: 'batchInput', width: 200 },
      { prop: 'kinds', label: t(`${P}bill.kind`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}billKinds`, BILL_KINDS) },
    ],
    [t],
  );
  const list = useListPage<Bill, BillQuery, Awaited<ReturnType<typeof listBills>>>({ fields: filterFields, queryKey: [...BILLS_KEY, 'refundable'], toQuery: paidQuery, fetch: listBills });
  const left = refunding ? refundable(refunding) : 0;
  const fields = useMemo<FormField[]>(
    () => [
      { kind: 'select', name: 'reason', label: t(`${P}refund.reason`), required: true, options: codeOptions(t, `${P}refundReasons`, REFUND_REASONS) },
      { kind: 'money-fen', name: 'amountFen', label: t(`${P}refund.amount`), required: true, min: 1, max: left, initialValue: left },
      { kind: 'textarea', name: 'reasonDetail', label: t(`${P}refund.reasonDetail`), maxLength: 200 },
      ...payeeFields(t),
    ],
    [t, left],
  );
  const submit = async () => {
    if (!refunding) return;
    await form.validateFields();
    const values = toSubmitValues(fields, form.getFieldsValue(true) as FormValues);
    await create.mutateAsync({
      idempotencyKey: key,
      body: {
        billId: refunding.id,
        reason: (values.reason as RefundReason | undefined) ?? null,
        reasonDetail: typeof values.reasonDetail === 'string' ? values.reasonDetail : '',
        amountFen: Number(values.amountFen ?? 0),
        attachments: [],
        ...payeeOf(values),
      },
    });
    setKey(newIdempotencyKey());
    toastSuccess(t(`${P}refund.applied`));
    setRefunding(undefined);
  };
  const columns: ListColumn<Bill>[] = [
    { prop: 'billNo', label: t(`${P}bill.billNo`), width: 180, fixed: 'left' },
    { prop: 'title', label: t(`${P}bill.title`), width: 220, showOverflowTooltip: true },
    { prop: 'kind', label: t(`${P}bill.kind`), width: 120, formatter: (row) => codeLabel(t, `${P}billKinds`, row.kind) },
    { prop: 'paidFen', label: t(`${P}bill.paid`), width: 130, align: 'right', formatter: (row) => money(row.paidFen) },
    { prop: 'refundedFen', label: t(`${P}bill.refunded`), width: 130, align: 'right', formatter: (row) => money(row.refundedFen) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="billStatuses" colors={BILL_COLORS} /> },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 110,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" disabled={refundable(row) <= 0} onClick={() => setRefunding(row)} data-testid="refund-apply">
          {t(`${P}refund.apply`)}
        </Button>
      ),
    },
  ];
  return (
    <ListPage<Bill>
      testId="finance-refundable-list"
      {...list.listProps}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1100, ...list.tableProps }}
    >
      <AppDialog
        open={!!refunding}
        width={720}
        title={`${t(`${P}refund.apply`)} · ${refunding?.billNo ?? ''}（${t(`${P}refund.left`, { left: money(left) })}）`}
        onCancel={() => setRefunding(undefined)}
        onConfirm={submit}
        destroyOnHidden
      >
        <DynamicForm fields={fields} form={form} name="refund-apply" />
      </AppDialog>
    </ListPage>
  );
}
