import { Descriptions, Form, InputNumber, Radio } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toFen, toYuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { showServerErrors } from '@/lib/server-errors';
import { useUpdateAccount, type ChargingAccount } from '../api/accounts';
import { AMOUNT_INPUT } from './amount';
import { codeLabel } from './labels';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface SettingsValues {
  threshold?: number | null;
  status: 'ACTIVE' | 'FROZEN';
}

/** An account's low-balance alert and, for organisation accounts, freeze/unfreeze. */
export function AccountSettingsDialog({ account, onClose }: { account?: ChargingAccount; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<SettingsValues>();
  const update = useUpdateAccount();
  const open = !!account;

  useEffect(() => {
    if (!account) return;
    form.setFieldsValue({ threshold: toYuan(account.lowBalanceThresholdFen) || null, status: account.status === 'FROZEN' ? 'FROZEN' : 'ACTIVE' });
  }, [account, form]);

  const submit = async () => {
    if (!account) return;
    const values = await form.validateFields();
    try {
      await update.mutateAsync({
        accountId: account.id,
        body: { lowBalanceThresholdFen: toFen(values.threshold), status: account.kind === 'MAIN' ? null : values.status },
      });
      toastSuccess(t('energy:accounts.saved'));
      onClose();
    } catch (err) {
      showServerErrors(form, err, { toField: (f) => (f === 'lowBalanceThresholdFen' ? 'threshold' : undefined) });
      throw err;
    }
  };

  return (
    <AppDialog open={open} width={480} title={t('energy:accounts.settingsTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t('energy:fields.account')}>{account?.orgName}</Descriptions.Item>
        <Descriptions.Item label={t('energy:accounts.kind')}>{codeLabel(t, 'accountKind', account?.kind)}</Descriptions.Item>
      </Descriptions>
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="accountSettingsForm">
        <Form.Item name="threshold" label={t('energy:accounts.threshold')}>
          <InputNumber {...AMOUNT_INPUT} />
        </Form.Item>
        {account?.kind !== 'MAIN' && (
          <Form.Item name="status" label={t('energy:fields.status')}>
            <Radio.Group
              options={[
                { value: 'ACTIVE', label: codeLabel(t, 'accountStatus', 'ACTIVE') },
                { value: 'FROZEN', label: codeLabel(t, 'accountStatus', 'FROZEN') },
              ]}
            />
          </Form.Item>
        )}
      </Form>
    </AppDialog>
  );
}
