import { Button, Card, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { logout } from '@/lib/auth';
import { usePageTitle } from '@/components/use-page-title';

/** Enterprise choice for a personal session; the choice itself comes with the identity issue. */
export default function SelectNetPage() {
  const { t } = useTranslation();
  usePageTitle('route.selectNet');
  return (
    <div className="fd-center-page">
      <Card variant="borderless">
        <Result status="info" title={t('selectNet.title')} subTitle={t('selectNet.desc')} extra={<Button onClick={() => void logout()}>{t('selectNet.back')}</Button>} />
      </Card>
    </div>
  );
}
