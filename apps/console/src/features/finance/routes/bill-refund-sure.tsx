import { Button, Descriptions, Form, Space } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { ModuleCard } from '@/components/module-card';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { useConfirmRefund, useRefund, type Refund } from '../api/finance';
import { REFUND_COLORS, money, pathOf } from '../components/labels';
import { BackButton, CodeTag, DetailState, P } from '../components/parts';
import { payeeFields, payeeOf } from '../components/payee-fields';

export interface BillRefundSurePageProps {
  /** billRefundSureB2B: the B2B confirmation. */
  b2b?: boolean;
}

/**
 * 退款确认 (billRefundSure, and billRefundSureB2B, as:refund): a refund the
 * operator proposed, confirmed with where the money goes against the
 * approved amount seen (`?id=`); one Idempotency-Key per confirmation.
 */
export default function BillRefundSurePage({ b2b = false }: BillRefundSurePageProps) {
  const [params] = useSearchParams();
  const detail = useRefund(params.get('id') ?? '');
  return <DetailState query={detail} render={(refund) => <ConfirmRefund refund={refund} b2b={b2b} />} />;
}

function ConfirmRefund({ refund, b2b }: { refund: Refund; b2b: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm();
  const [key, setKey] = useState(newIdempotencyKey);
  const confirm = useConfirmRefund();
  const fields = useMemo(() => payeeFields(t), [t]);
  const record = useMemo<FormValues>(
    () => ({ method: refund.method ?? 'ORIGINAL_ROUTE', payeeName: refund.payeeName, payeeBankName: refund.payeeBankName, payeeAccount: '' }),
    [refund],
  );
  // What the confirmation pays out: the approved amount once there is one, else the requested one.
  const amount = refund.approvedFen || refund.requestedFen;
  const submit = async () => {
    await form.validateFields();
    const values = toSubmitValues(fields, form.getFieldsValue(true) as FormValues);
    await confirm.mutateAsync({ id: refund.id, b2b, idempotencyKey: key, body: { expectedAmountFen: amount, ...payeeOf(values) } });
    setKey(newIdempotencyKey());
    toastSuccess(t(`${P}refund.confirmed`));
    navigate(pathOf('refundRecord'));
  };
  // No operator review is built: the enterprise's confirmation approves what was requested.
  const awaiting = refund.status === 'PENDING_REVIEW' || refund.status === 'PENDING_CONFIRMATION';
  return (
    <ModuleCard title={`${t(`${P}refund.refund`)} · ${refund.refundNo}`} extra={<BackButton to={pathOf('refundRecord')} />}>
      <Space direction="vertical" style={{ width: '100%' }} data-testid="refund-sure">
        <Descriptions column={3} size="small" bordered>
          <Descriptions.Item label={t(`${P}bill.billNo`)}>{refund.billNo}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}refund.reason`)}>{codeLabel(t, `${P}refundReasons`, refund.reason)}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}common.status`)}>
            <CodeTag code={refund.status} labels="refundStatuses" colors={REFUND_COLORS} />
          </Descriptions.Item>
          <Descriptions.Item label={t(`${P}refund.requested`)}>{money(refund.requestedFen)}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}refund.approved`)}>
            <strong data-testid="refund-approved">{money(refund.approvedFen)}</strong>
          </Descriptions.Item>
          <Descriptions.Item label={t(`${P}refund.reviewTime`)}>{formatTime(refund.reviewTime)}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}refund.reasonDetail`)} span={3}>
            {refund.reasonDetail || '-'}
          </Descriptions.Item>
        </Descriptions>
        {awaiting ? (
          <DynamicForm fields={fields} form={form} record={record} defaultSpan={12} name="refund-sure">
            <Button type="primary" loading={confirm.isPending} onClick={() => void submit().catch(() => undefined)} data-testid="refund-confirm">
              {t(`${P}refund.confirm`, { amount: money(amount) })}
            </Button>
          </DynamicForm>
        ) : (
          <span data-testid="refund-not-awaiting">{t(`${P}refund.notAwaiting`)}</span>
        )}
      </Space>
    </ModuleCard>
  );
}
