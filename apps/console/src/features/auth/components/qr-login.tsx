import { QrcodeOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Spin } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { QR_FRAME } from '@/config/constants';
import { useWeComAppInfo } from '../api/wecom-app-info';
import { LoginType, useLogin } from '../api/login';
import { useAfterLogin } from './use-after-login';

const WECOM_QR_URL = 'https://open.work.weixin.qq.com/wwopen/sso/qrConnect';

/**
 * Workplace-chat QR sign-in (spec §4): the frame shows the QR code; after the scan the
 * browser returns to /login with `code`, which signs in with loginType 3.
 */
export function QrLogin() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const { data, isPending, isError, refetch, isFetching } = useWeComAppInfo();
  const afterLogin = useAfterLogin();
  const { mutate: login, isPending: signingIn } = useLogin(afterLogin);
  const code = params.get('code');
  const tried = useRef(false);

  useEffect(() => {
    if (!code || tried.current) return;
    tried.current = true;
    login({ loginType: LoginType.WorkplaceChat, authToken: code, verifyCode: '1' }, {
      onError: () =>
        setParams(
          (p) => {
            p.delete('code');
            return p;
          },
          { replace: true },
        ),
    });
  }, [code, login, setParams]);

  let body;
  if (isPending || signingIn) {
    body = <Spin />;
  } else if (isError || !data) {
    body = (
      <div className="fd-qr__failed">
        <QrcodeOutlined className="fd-qr__icon" />
        <div>{t('login.qrUnavailable')}</div>
        <Button icon={<ReloadOutlined />} loading={isFetching} onClick={() => void refetch()}>
          {t('login.qrRetry')}
        </Button>
      </div>
    );
  } else {
    const src = `${WECOM_QR_URL}?${new URLSearchParams({ appid: data.appid, redirect_uri: data.redirect_uri, state: 'fleetdesk', login_type: 'jssdk' })}`;
    body = <iframe title={t('login.tabQr')} src={src} width={QR_FRAME.width} height={QR_FRAME.height} frameBorder={0} />;
  }
  return (
    <div className="fd-qr">
      <div className="fd-qr__frame" style={{ width: QR_FRAME.width, height: QR_FRAME.height }} data-testid="qr-frame">
        {body}
      </div>
      <div className="fd-qr__hint">{t('login.qrHint')}</div>
    </div>
  );
}
