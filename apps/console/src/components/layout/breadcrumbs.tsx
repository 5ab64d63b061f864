import { Breadcrumb } from 'antd';
import { useTranslation } from 'react-i18next';
import { HOME_PATH } from '@/config/routes';
import type { ResolvedRoute } from '@/lib/access';
import { MenuLink } from './menu-link';

export function breadcrumbTrail(route: ResolvedRoute | undefined): ResolvedRoute[] {
  const trail: ResolvedRoute[] = [];
  for (let r = route; r; r = r.parent) trail.unshift(r);
  return trail;
}

export function Breadcrumbs({ route }: { route?: ResolvedRoute }) {
  const { t } = useTranslation();
  const trail = breadcrumbTrail(route).filter((r) => r.fullPath !== HOME_PATH);
  const items = [
    { key: 'home', title: <MenuLink path={HOME_PATH}>{t('route.dashboard')}</MenuLink> },
    ...trail.map((r, i) => ({
      key: r.fullPath,
      title: i < trail.length - 1 && r.children.length ? <MenuLink path={r.fullPath}>{t(r.meta.title)}</MenuLink> : t(r.meta.title),
    })),
  ];
  return <Breadcrumb className="fd-crumbs" items={items} data-testid="breadcrumbs" />;
}
