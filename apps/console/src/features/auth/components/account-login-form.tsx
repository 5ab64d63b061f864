import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { trimInput } from '@/lib/validators';
import { LoginType, useLogin } from '../api/login';
import { useAfterLogin } from './use-after-login';

interface AccountForm {
  username: string;
  password: string;
}

export function AccountLoginForm() {
  const { t } = useTranslation();
  const afterLogin = useAfterLogin();
  const { mutate, isPending } = useLogin(afterLogin);
  return (
    <Form<AccountForm>
      name="account-login"
      size="large"
      validateTrigger="onChange"
      onFinish={(v) => mutate({ loginType: LoginType.Account, username: v.username, password: v.password })}
    >
      <Form.Item name="username" normalize={trimInput} rules={[{ required: true, message: t('login.usernameRequired') }]}>
        <Input prefix={<UserOutlined />} placeholder={t('login.usernamePlaceholder')} autoComplete="username" maxLength={64} />
      </Form.Item>
      <Form.Item name="password" normalize={trimInput} rules={[{ required: true, message: t('login.passwordRequired') }]}>
        <Input.Password prefix={<LockOutlined />} placeholder={t('login.passwordPlaceholder')} autoComplete="current-password" maxLength={64} />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={isPending}>
        {t('login.submit')}
      </Button>
    </Form>
  );
}
