import { Button, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { PATHS } from '../paths';

const LINKS = [
  ['fenceDashboard', PATHS.fenceDashboard],
  ['managePage', PATHS.managePage],
  ['crossRailPage', PATHS.crossRailPage],
  ['singInSetPage', PATHS.singInSetPage],
  ['operateMonitor', PATHS.operateMonitor],
] as const;

/** The fence pages link to each other (only 电子围栏 is in the menu; the rest are hidden routes). */
export function FenceNav() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return (
    <Space wrap data-testid="fence-nav">
      {LINKS.filter(([, path]) => path !== pathname).map(([name, path]) => (
        <Button key={name} onClick={() => navigate(path)}>
          {t(`route.${name}`)}
        </Button>
      ))}
    </Space>
  );
}
