import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { passwordRules, trimInput } from '@/lib/validators';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

export interface ChangePasswordForm {
  oldPassword: string;
  newPassword: string;
  confirmNewPaw: string;
}

/** Change-password form with the rules of console spec §5 (validated on blur and submit). */
export function ChangePasswordDialog({ open, onClose, onSubmit }: { open: boolean; onClose: () => void; onSubmit: (values: ChangePasswordForm) => Promise<void> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ChangePasswordForm>();
  const rules = passwordRules(t);
  return (
    <AppDialog
      title={t('password.title')}
      open={open}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      onConfirm={async () => {
        const values = await form.validateFields();
        await onSubmit(values);
        form.resetFields();
      }}
    >
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} validateTrigger="onBlur" name="change-password">
        <Form.Item label={t('password.old')} name="oldPassword" normalize={trimInput} rules={rules.oldPassword} validateFirst>
          <Input.Password autoComplete="current-password" />
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
