import { QrcodeOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { QR_FRAME } from '@/config/constants';
import { qrFrameUrl, useWeComAppInfo, type WeComAppInfo } from '../api/wecom-app-info';

/**
 * In embedded mode WeCom's frame posts the return address (the redirect URI with
 * `code` and `state`) to this page, which then navigates there (console spec §4).
 */
export function weComReturnAddress(data: unknown, origin: string, info: WeComAppInfo | undefined): string | undefined {
  if (!info || typeof data !== 'string') return undefined;
  if (origin !== new URL(info.qrconnect_url).origin) return undefined;
  return data.startsWith(info.redirect_uri) && /[?&]code=/.test(data) ? data : undefined;
}

/**
 * Workplace-chat QR sign-in: WeCom's QR page in the 250×300 frame, with app info
 * (and so a fresh `state`) fetched for every frame and replaced before the state
 * runs out. After the scan the browser comes back to /login with `code` and
 * `state`, which the sign-in page turns into a loginType 3 sign-in.
 */
export function QrLogin() {
  const { t } = useTranslation();
  const { data, isPending, isError, refetch, isFetching } = useWeComAppInfo();

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const target = weComReturnAddress(event.data, event.origin, data);
      if (target) window.location.assign(target);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [data]);

  let body;
  if (isPending) {
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
    body = <iframe key={data.state} title={t('login.tabQr')} src={qrFrameUrl(data)} width={QR_FRAME.width} height={QR_FRAME.height} frameBorder={0} data-testid="qr-iframe" />;
  }
  return (
    <div className="fd-qr">
      <div className="fd-qr__frame" style={{ width: QR_FRAME.width, height: QR_FRAME.height }} data-testid="qr-frame">
        {body}
      </div>
      <div className="fd-qr__hint">
        {t('login.qrHint')}
        {data && (
          <Button type="link" size="small" icon={<ReloadOutlined />} loading={isFetching} onClick={() => void refetch()} data-testid="qr-refresh">
            {t('login.qrRefresh')}
          </Button>
        )}
      </div>
    </div>
  );
}
