import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { passwordRules, phoneRules, trimInput } from '@/lib/validators';
import { useResetPasswordByPhone } from '../api/reset-password';
import { SmsCodeButton } from './sms-code-button';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface ResetForm {
  phone: string;
  verifyCode: string;
  newPassword: string;
  confirmNewPaw: string;
}

/**
 * Forgotten password: a `reset-password` SMS code to the account's phone sets a
 * new password (rules of console spec §5); every session of the account ends, and the
 * person signs in again with the new password.
 */
export default function ResetPasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ResetForm>();
  const phone = Form.useWatch('phone', form);
  const { mutateAsync } = useResetPasswordByPhone(() => toastSuccess(t('reset.done')));
  const rules = passwordRules(t);
  const close = () => {
    form.resetFields();
    onClose();
  };
  return (
    <AppDialog
      title={t('reset.title')}
      open={open}
      width={460}
      onCancel={close}
      onConfirm={async () => {
        const v = await form.validateFields();
        await mutateAsync({ phone: v.phone, verifyCode: v.verifyCode, newPassword: v.newPassword });
        close();
      }}
    >
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap validateTrigger="onBlur" name="reset-password">
        <Form.Item label={t('reset.phone')} name="phone" normalize={trimInput} rules={phoneRules(t)} validateTrigger="onChange" validateFirst>
          <Input placeholder={t('login.phonePlaceholder')} inputMode="numeric" autoComplete="tel" maxLength={11} />
        </Form.Item>
        <Form.Item label={t('reset.code')} name="verifyCode" normalize={trimInput} rules={[{ required: true, message: t('login.codeRequired') }]}>
          <Input
            placeholder={t('login.codePlaceholder')}
            maxLength={6}
            inputMode="numeric"
            autoComplete="one-time-code"
            suffix={<SmsCodeButton phone={phone} purpose="reset-password" />}
          />
        </Form.Item>
        <Form.Item label={t('password.new')} name="newPassword" normalize={trimInput} rules={rules.newPassword} validateFirst>
          <Input.Password autoComplete="new-password" maxLength={64} />
        </Form.Item>
        <Form.Item label={t('password.confirm')} name="confirmNewPaw" normalize={trimInput} dependencies={['newPassword']} rules={rules.confirmNewPaw} validateFirst>
          <Input.Password autoComplete="new-password" maxLength={64} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
