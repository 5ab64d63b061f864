import { Descriptions, Form, Input, InputNumber, Radio } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toFen, yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { showServerErrors } from '@/lib/server-errors';
import { useChargingAccounts } from '../api/accounts';
import { useChangeCardAmount, type ChargingCard } from '../api/cards';
import { AMOUNT_INPUT, amountRule } from './amount';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

type Action = 'TOP_UP' | 'WITHDRAW';

/**
 * 额度变更: tops a card up from its account or withdraws to it. The amount may not
 * exceed what the source has available (the account's for a top-up, the card's for
 * a withdrawal); one Idempotency-Key per opening.
 */
export function CardAmountDialog({ card, onClose }: { card?: ChargingCard; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ kind: Action; amount?: number; remark?: string }>();
  const change = useChangeCardAmount();
  const key = useRef(newIdempotencyKey());
  const open = !!card;
  const accounts = useChargingAccounts({}, open);
  const account = accounts.data?.find((a) => a.id === card?.accountId);
  const kind = Form.useWatch('kind', form);

  useEffect(() => {
    if (!open) return;
    key.current = newIdempotencyKey();
    form.resetFields();
    form.setFieldsValue({ kind: 'TOP_UP' });
  }, [open, form]);

  const availableFen = () => (form.getFieldValue('kind') === 'WITHDRAW' ? card?.balanceFen : account?.availableFen);

  const submit = async () => {
    if (!card) return;
    const values = await form.validateFields();
    try {
      await change.mutateAsync({ id: card.id, idempotencyKey: key.current, body: { kind: values.kind, amountFen: toFen(values.amount), remark: values.remark ?? '' } });
      toastSuccess(t('energy:cards.changed'));
      onClose();
    } catch (err) {
      showServerErrors(form, err, { toField: (f) => (f === 'amountFen' ? 'amount' : f === 'remark' ? 'remark' : undefined) });
      throw err;
    }
  };

  return (
    <AppDialog open={open} width={520} title={t('energy:cards.amountTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <div data-testid="card-amount-dialog">
        <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
          <Descriptions.Item label={t('energy:fields.cardNo')}>{card?.cardNo}</Descriptions.Item>
          <Descriptions.Item label={t('energy:fields.account')}>{account?.orgName ?? card?.orgName}</Descriptions.Item>
        </Descriptions>
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="cardAmountForm">
          <Form.Item name="kind" label={t('energy:cards.amountKind')}>
            <Radio.Group
              options={[
                { value: 'TOP_UP', label: t('energy:cards.topUp') },
                { value: 'WITHDRAW', label: t('energy:cards.withdraw') },
              ]}
            />
          </Form.Item>
          <Form.Item
            name="amount"
            label={t('energy:common.amountYuan')}
            dependencies={['kind']}
            rules={[amountRule(t, availableFen)]}
            extra={kind === 'WITHDRAW' ? t('energy:cards.cardAvailable', { amount: yuan(card?.balanceFen) }) : t('energy:cards.accountAvailable', { amount: yuan(account?.availableFen) })}
          >
            <InputNumber {...AMOUNT_INPUT} data-testid="card-amount" />
          </Form.Item>
          <Form.Item name="remark" label={t('energy:common.remark')}>
            <Input.TextArea rows={2} maxLength={200} showCount placeholder={t('energy:common.remarkPlaceholder')} />
          </Form.Item>
        </Form>
      </div>
    </AppDialog>
  );
}
