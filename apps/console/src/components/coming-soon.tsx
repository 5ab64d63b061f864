import { ClockCircleOutlined } from '@ant-design/icons';
import { Button, Card, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { HOME_PATH } from '@/config/routes';

/** A page whose domain is not built yet: a clear state inside the real layout. */
export function ComingSoon({ title }: { title: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Card variant="borderless" className="fd-page-card">
      <Result
        icon={<ClockCircleOutlined />}
        title={t('comingSoon.title', { page: t(title) })}
        subTitle={t('comingSoon.desc')}
        extra={<Button onClick={() => navigate(HOME_PATH)}>{t('status.backHome')}</Button>}
      />
    </Card>
  );
}
