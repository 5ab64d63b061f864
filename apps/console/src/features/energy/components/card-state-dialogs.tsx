import { Alert, Checkbox, Form, Input } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { useCancelCard, useFreezeCard, type ChargingCard } from '../api/cards';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** 冻结: the card cannot start charging until unfrozen; its balance stays. */
export function FreezeCardDialog({ card, onClose }: { card?: ChargingCard; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason?: string }>();
  const freeze = useFreezeCard();
  useEffect(() => {
    if (card) form.resetFields();
  }, [card, form]);
  const submit = async () => {
    if (!card) return;
    const { reason } = await form.validateFields();
    await freeze.mutateAsync({ id: card.id, reason: reason ?? '' });
    toastSuccess(t('energy:cards.frozen'));
    onClose();
  };
  return (
    <AppDialog open={!!card} width={480} title={t('energy:cards.freezeTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Alert type="warning" showIcon title={t('energy:cards.freezeConfirm')} style={{ marginBottom: 12 }} />
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="freezeCardForm">
        <Form.Item name="reason" label={t('energy:cards.freezeReason')}>
          <Input.TextArea rows={2} maxLength={200} showCount />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

/** 注销: closes the card for good (or as lost); its balance goes back to the account (a money move, so one Idempotency-Key per opening). */
export function CancelCardDialog({ card, onClose }: { card?: ChargingCard; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ lost?: boolean; reason?: string }>();
  const cancel = useCancelCard();
  const key = useRef(newIdempotencyKey());
  useEffect(() => {
    if (!card) return;
    key.current = newIdempotencyKey();
    form.resetFields();
  }, [card, form]);
  const submit = async () => {
    if (!card) return;
    const values = await form.validateFields();
    await cancel.mutateAsync({ id: card.id, idempotencyKey: key.current, body: { lost: values.lost ?? false, reason: values.reason ?? '' } });
    toastSuccess(t('energy:cards.cancelled'));
    onClose();
  };
  return (
    <AppDialog open={!!card} width={480} title={t('energy:cards.cancelTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Alert type="error" showIcon title={t('energy:cards.cancelConfirm', { amount: yuan(card?.balanceFen) })} style={{ marginBottom: 12 }} />
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="cancelCardForm">
        {/* An empty label keeps the box in line with the fields below the 105 px labels. */}
        <Form.Item name="lost" valuePropName="checked" label=" " colon={false}>
          <Checkbox>{t('energy:cards.cancelLost')}</Checkbox>
        </Form.Item>
        <Form.Item name="reason" label={t('energy:cards.cancelReason')}>
          <Input.TextArea rows={2} maxLength={200} showCount />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
