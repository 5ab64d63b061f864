import { Descriptions, Form, Input, InputNumber } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toFen, yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { showServerErrors } from '@/lib/server-errors';
import { useReclaim, type ChargingAccount } from '../api/accounts';
import { AMOUNT_INPUT, amountRule } from './amount';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** 余额回收: moves money from a child account back up to its parent (at most the child's available balance). */
export function ReclaimDialog({ account, parentName, onClose }: { account?: ChargingAccount; parentName?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ amount?: number; remark?: string }>();
  const reclaim = useReclaim();
  const key = useRef(newIdempotencyKey());
  const open = !!account;

  useEffect(() => {
    if (!open) return;
    key.current = newIdempotencyKey();
    form.resetFields();
  }, [open, form]);

  const submit = async () => {
    if (!account) return;
    const values = await form.validateFields();
    try {
      await reclaim.mutateAsync({ accountId: account.id, idempotencyKey: key.current, body: { amountFen: toFen(values.amount), remark: values.remark ?? '' } });
      toastSuccess(t('energy:accounts.reclaimed'));
      onClose();
    } catch (err) {
      showServerErrors(form, err, { toField: (f) => (f === 'amountFen' ? 'amount' : f === 'remark' ? 'remark' : undefined) });
      throw err;
    }
  };

  return (
    <AppDialog open={open} width={520} title={t('energy:accounts.reclaimTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <div data-testid="reclaim-dialog">
        <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
          <Descriptions.Item label={t('energy:accounts.reclaimFrom')}>{account?.orgName}</Descriptions.Item>
          <Descriptions.Item label={t('energy:accounts.available')}>{yuan(account?.availableFen)}</Descriptions.Item>
          <Descriptions.Item label={t('energy:accounts.reclaimTo')}>{parentName}</Descriptions.Item>
        </Descriptions>
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="reclaimForm">
          <Form.Item name="amount" label={t('energy:common.amountYuan')} rules={[amountRule(t, () => account?.availableFen)]}>
            <InputNumber {...AMOUNT_INPUT} data-testid="reclaim-amount" />
          </Form.Item>
          <Form.Item name="remark" label={t('energy:common.remark')}>
            <Input.TextArea rows={2} maxLength={200} showCount placeholder={t('energy:common.remarkPlaceholder')} />
          </Form.Item>
        </Form>
      </div>
    </AppDialog>
  );
}
