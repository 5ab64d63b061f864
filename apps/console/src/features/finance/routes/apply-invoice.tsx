import { Button, Form, InputNumber, Result, Space, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { useAccess } from '@/lib/auth';
import { codeLabel, codeOptions } from '@/lib/codes';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toFen } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { useQuery } from '@tanstack/react-query';
import '../messages';
import { INVOICEABLE_KEY, listInvoiceableBills, useApplyInvoice, useInvoiceSettings, type Bill } from '../api/finance';
import { INVOICE_TYPES, PAPER_INVOICE_TYPES, money, pathOf, type InvoiceType } from '../components/labels';
import { BackButton, P } from '../components/parts';

export interface ApplyInvoicePageProps {
  /** The submit route's channel; unset (applyInvoice): the enterprise's. */
  b2b?: boolean;
}

/**
 * 申请开票 (applyInvoice, and its submit routes applyInvoiceSubmit and
 * applyInvoiceB2BSubmit, as:invoice): the invoice for the bills chosen in
 * applyBill (`?billNos=`): type (general or special, digital or paper), title,
 * address (paper invoices), the amount of each bill (at most what is left to
 * invoice) and, for B2B, the contract and purchase-order numbers. The total
 * seen is sent; one Idempotency-Key per application.
 */
export default function ApplyInvoicePage({ b2b }: ApplyInvoicePageProps) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const { principal } = useAccess();
  const billNos = params.getAll('billNos');
  const bills = useQuery({
    queryKey: [...INVOICEABLE_KEY, 'chosen', billNos],
    queryFn: () => listInvoiceableBills({ page: 1, size: 100, billNos }),
    enabled: billNos.length > 0,
  });
  const channelB2b = b2b ?? !!principal?.flags.isB2B;
  if (!billNos.length)
    return (
      <Result
        status="info"
        title={t(`${P}invoice.chooseFirst`)}
        data-testid="invoice-choose-first"
        extra={<BackButton to={pathOf('applyBill')} />}
      />
    );
  if (bills.error) return <LoadErrorResult error={bills.error} onRetry={() => void bills.refetch()} />;
  if (!bills.data) return <PageLoading />;
  return <ApplyForm bills={bills.data.list} b2b={channelB2b} />;
}

function ApplyForm({ bills, b2b }: { bills: Bill[]; b2b: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm();
  const settings = useInvoiceSettings();
  const apply = useApplyInvoice();
  const [key, setKey] = useState(newIdempotencyKey);
  const [amounts, setAmounts] = useState<Record<string, number>>(() => Object.fromEntries(bills.map((b) => [b.id, b.invoiceableFen])));
  const total = bills.reduce((sum, b) => sum + (amounts[b.id] ?? 0), 0);
  const titles = useMemo(() => settings.titles.data?.list ?? [], [settings.titles.data]);
  const addresses = useMemo(() => settings.addresses.data?.list ?? [], [settings.addresses.data]);
  const fields = useMemo<FormField[]>(
    () => [
      { kind: 'radio', name: 'invoiceType', label: t(`${P}invoice.type`), required: true, options: codeOptions(t, `${P}invoiceTypes`, INVOICE_TYPES), initialValue: 'DIGITAL_GENERAL' },
      {
        kind: 'select',
        name: 'titleId',
        label: t(`${P}invoice.title`),
        required: true,
        options: titles.map((x) => ({ value: x.id, label: `${x.name}${x.taxNumber ? `（${x.taxNumber}）` : ''}` })),
        initialValue: titles.find((x) => x.isDefault)?.id,
      },
      {
        kind: 'select',
        name: 'addressId',
        label: t(`${P}invoice.address`),
        required: true,
        options: addresses.map((a) => ({ value: a.id, label: `${a.recipientName} ${a.area.provinceName}${a.area.cityName}${a.detailAddress}` })),
        initialValue: addresses.find((a) => a.isDefault)?.id,
        hidden: (v) => !PAPER_INVOICE_TYPES.includes(v.invoiceType as InvoiceType),
      },
      { kind: 'text', name: 'content', label: t(`${P}invoice.content`), maxLength: 100 },
      { kind: 'text', name: 'contractNo', label: t(`${P}invoice.contractNo`), maxLength: 64, hidden: () => !b2b },
      { kind: 'text', name: 'purchaseOrderNo', label: t(`${P}invoice.purchaseOrderNo`), maxLength: 64, hidden: () => !b2b },
      { kind: 'textarea', name: 'invoiceRemark', label: t(`${P}invoice.remark`), maxLength: 200 },
    ],
    [t, titles, addresses, b2b],
  );
  const submit = async (values: FormValues) => {
    const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : '');
    await apply.mutateAsync({
      b2b,
      idempotencyKey: key,
      body: {
        invoiceType: values.invoiceType as InvoiceType,
        titleId: text('titleId'),
        addressId: text('addressId'),
        bills: bills.map((b) => ({ billId: b.id, amountFen: amounts[b.id] ?? 0 })),
        expectedTotalFen: total,
        content: text('content'),
        contractNo: text('contractNo'),
        purchaseOrderNo: text('purchaseOrderNo'),
        invoiceRemark: text('invoiceRemark'),
      },
    });
    setKey(newIdempotencyKey());
    toastSuccess(t(`${P}invoice.applied`));
    navigate(pathOf('invoiceHistory'));
  };
  // The form starts from the default title and address: it mounts once they are known.
  if (settings.titles.isPending || settings.addresses.isPending) return <PageLoading />;
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="invoice-apply-form">
      <ModuleCard title={t(`${P}invoice.bills`)} extra={<BackButton to={pathOf('applyBill')} />}>
        <Table<Bill>
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={bills}
          columns={[
            { title: t(`${P}bill.billNo`), dataIndex: 'billNo' },
            { title: t(`${P}bill.kind`), key: 'kind', render: (_, b) => codeLabel(t, `${P}billKinds`, b.kind) },
            { title: t(`${P}bill.period`), dataIndex: 'period' },
            { title: t(`${P}bill.invoiceable`), key: 'left', align: 'right', render: (_, b) => money(b.invoiceableFen) },
            {
              title: t(`${P}invoice.amount`),
              key: 'amount',
              render: (_, b) => (
                <InputNumber
                  min={0.01}
                  max={b.invoiceableFen / 100}
                  precision={2}
                  value={(amounts[b.id] ?? 0) / 100}
                  onChange={(v) => setAmounts((a) => ({ ...a, [b.id]: Math.min(toFen(v), b.invoiceableFen) }))}
                  data-testid="invoice-bill-amount"
                />
              ),
            },
          ]}
        />
        <Typography.Text strong data-testid="invoice-total">
          {t(`${P}invoice.total`, { total: money(total) })}
        </Typography.Text>
      </ModuleCard>
      <ModuleCard title={t(b2b ? `${P}invoice.b2bForm` : `${P}invoice.form`)}>
        <DynamicForm fields={fields} form={form} defaultSpan={12} onSubmit={(v) => submit(v).catch(() => undefined)} name="invoice-apply">
          <Button type="primary" htmlType="submit" loading={apply.isPending} disabled={total <= 0} data-testid="invoice-submit">
            {t(`${P}invoice.submit`)}
          </Button>
        </DynamicForm>
      </ModuleCard>
    </Space>
  );
}
