import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { trimInput } from '@/lib/validators';

export interface ChangePasswordForm {
  oldPassword: string;
  newPassword: string;
  confirmNewPaw: string;
}

/** Change-password form with the rules of spec §5 (validated on blur and submit). */
export function ChangePasswordDialog({ open, onClose, onSubmit }: { open: boolean; onClose: () => void; onSubmit: (values: ChangePasswordForm) => Promise<void> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ChangePasswordForm>();
  const length = { min: 8, max: 20, message: t('password.length') };
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
      <Form form={form} layout="horizontal" labelCol={{ flex: '105px' }} validateTrigger="onBlur" name="change-password">
        <Form.Item label={t('password.old')} name="oldPassword" normalize={trimInput} rules={[{ required: true, message: t('password.oldRequired') }]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item label={t('password.new')} name="newPassword" normalize={trimInput} rules={[{ required: true, message: t('password.newRequired') }, length]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label={t('password.confirm')}
          name="confirmNewPaw"
          normalize={trimInput}
          dependencies={['newPassword']}
          rules={[
            { required: true, message: t('password.confirmRequired') },
            length,
            ({ getFieldValue }) => ({
              validator: (_, value: string) => {
                if (!value) return Promise.reject(new Error(t('password.confirmEmpty')));
                return value === getFieldValue('newPassword') ? Promise.resolve() : Promise.reject(new Error(t('password.mismatch')));
              },
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
