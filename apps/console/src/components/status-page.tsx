import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { HOME_PATH } from '@/config/routes';

/**
 * /401 (no permission: the spec's path, shown as a 403 'forbidden' page) and /404
 * (unknown path), inside the real layout.
 */
export default function StatusPage({ status }: { status: 401 | 404 }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Result
      data-testid={status === 401 ? 'no-permission' : 'not-found'}
      status={status === 401 ? '403' : '404'}
      title={status === 401 ? 403 : 404}
      subTitle={t(status === 401 ? 'status.noAccess' : 'status.notFound')}
      extra={
        <Button type="primary" onClick={() => navigate(HOME_PATH)}>
          {t('status.backHome')}
        </Button>
      }
    />
  );
}
