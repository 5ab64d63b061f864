import { MobileOutlined, SafetyOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { phoneRules, trimInput } from '@/lib/validators';
import { LoginType, useLogin } from '../api/login';
import { SmsCodeButton } from './sms-code-button';
import { useAfterLogin } from './use-after-login';

interface PhoneForm {
  phone: string;
  verifyCode: string;
}

export function PhoneLoginForm() {
  const { t } = useTranslation();
  const [form] = Form.useForm<PhoneForm>();
  const phone = Form.useWatch('phone', form);
  const afterLogin = useAfterLogin();
  const { mutate: login, isPending } = useLogin(afterLogin);

  return (
    <Form<PhoneForm>
      form={form}
      name="phone-login"
      size="large"
      validateTrigger="onChange"
      onFinish={(v) => {
        localStorage.setItem('loginPhone', v.phone);
        login({ loginType: LoginType.Phone, phone: v.phone, verifyCode: v.verifyCode });
      }}
    >
      <Form.Item
        name="phone"
        normalize={trimInput}
        rules={phoneRules(t)}
      >
        <Input prefix={<MobileOutlined />} placeholder={t('login.phonePlaceholder')} inputMode="numeric" autoComplete="tel" />
      </Form.Item>
      <Form.Item name="verifyCode" normalize={trimInput} rules={[{ required: true, message: t('login.codeRequired') }]}>
        <Input
          prefix={<SafetyOutlined />}
          placeholder={t('login.codePlaceholder')}
          maxLength={6}
          inputMode="numeric"
          autoComplete="one-time-code"
          suffix={<SmsCodeButton phone={phone} purpose="login" />}
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={isPending}>
        {t('login.submit')}
      </Button>
    </Form>
  );
}
