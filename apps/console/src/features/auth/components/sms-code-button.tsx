import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { SMS_RESEND_SECONDS } from '@/config/constants';
import { ApiError, Code } from '@/lib/api-client';
import { useClickDebounce } from '@/lib/use-click-debounce';
import { isValidPhone } from '@/lib/validators';
import { useSendSmsCode, type SmsPurpose } from '../api/send-sms-code';
import { useCountdown } from './use-countdown';

/**
 * The send button of console spec §4: enabled only for a phone that passes the format
 * check; after a send it counts down 重新发送(n) from 60 s and then reads 发送
 * again. A refusal re-enables it (the toast says why), except a limit (4029),
 * which counts down the wait the server gave. Clicks are debounced (1000 ms,
 * console spec §9): a double click sends once and shows only that answer.
 */
export function SmsCodeButton({ phone, purpose }: { phone: string | undefined; purpose: SmsPurpose }) {
  const { t } = useTranslation();
  const countdown = useCountdown();
  const { mutate: send, isPending } = useSendSmsCode({
    onSuccess: (sent) => countdown.start(sent.resendAfterSeconds > 0 ? sent.resendAfterSeconds : SMS_RESEND_SECONDS),
    onError: (error) => {
      if (error instanceof ApiError && error.code === Code.RateLimited && error.retryAfterSeconds) countdown.start(error.retryAfterSeconds);
    },
  });
  const canSend = !!phone && isValidPhone(phone) && !countdown.running && !isPending;
  const onClick = useClickDebounce(() => {
    if (phone && canSend) send({ phone, purpose });
  });
  return (
    <Button type="link" size="small" className="fd-login__send" disabled={!canSend} loading={isPending} onClick={onClick}>
      {countdown.running ? t('login.resend', { n: countdown.remaining }) : t('login.send')}
    </Button>
  );
}
