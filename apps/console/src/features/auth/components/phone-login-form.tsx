import { MobileOutlined, SafetyOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SMS_RESEND_SECONDS } from '@/config/constants';
import { isValidPhone, trimInput } from '@/lib/validators';
import { LoginType, useLogin } from '../api/login';
import { useSendSmsCode } from '../api/send-sms-code';
import { useAfterLogin } from './use-after-login';

interface PhoneForm {
  phone: string;
  verifyCode: string;
}

/** Counts down once a second from `seconds` after `start()`; 0 when idle. */
export function useCountdown(seconds: number) {
  const [remaining, setRemaining] = useState(0);
  useEffect(() => {
    if (remaining <= 0) return;
    const timer = setTimeout(() => setRemaining((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [remaining]);
  return { remaining, start: () => setRemaining(seconds) };
}

export function PhoneLoginForm() {
  const { t } = useTranslation();
  const [form] = Form.useForm<PhoneForm>();
  const phone = Form.useWatch('phone', form);
  const afterLogin = useAfterLogin();
  const { mutate: login, isPending } = useLogin(afterLogin);
  const countdown = useCountdown(SMS_RESEND_SECONDS);
  const { mutate: send, isPending: sending } = useSendSmsCode(countdown.start);
  const canSend = !!phone && isValidPhone(phone) && countdown.remaining === 0 && !sending;

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
        rules={[
          { required: true, message: t('login.phoneRequired') },
          { validator: (_, v: string) => (isValidPhone(v) ? Promise.resolve() : Promise.reject(new Error(t('login.phoneInvalid')))) },
        ]}
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
          suffix={
            <Button type="link" size="small" className="fd-login__send" disabled={!canSend} loading={sending} onClick={() => send(phone)}>
              {countdown.remaining > 0 ? t('login.resend', { n: countdown.remaining }) : t('login.send')}
            </Button>
          }
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={isPending}>
        {t('login.submit')}
      </Button>
    </Form>
  );
}
