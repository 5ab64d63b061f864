import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { HOME_PATH } from '@/config/routes';

/** /401 (no permission) and /404 (unknown path), inside the real layout. */
export default function StatusPage({ status }: { status: 401 | 404 }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Result
      status={status === 401 ? '403' : '404'}
      title={status}
      subTitle={t(status === 401 ? 'status.noAccess' : 'status.notFound')}
      extra={
        <Button type="primary" onClick={() => navigate(HOME_PATH)}>
          {t('status.backHome')}
        </Button>
      }
    />
  );
}
