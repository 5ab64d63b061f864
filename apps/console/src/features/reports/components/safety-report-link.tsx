import { SafetyOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PATHS } from '../paths';

/** The operation logs' way to the safety report (a hidden route: no menu entry). */
export function SafetyReportLink() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Button icon={<SafetyOutlined />} onClick={() => navigate(PATHS.carSafetyReport)} data-testid="safety-report-link">
      {t('reports:safety.link')}
    </Button>
  );
}
