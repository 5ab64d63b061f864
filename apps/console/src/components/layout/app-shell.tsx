import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Button, Drawer } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { HOME_PATH } from '@/config/routes';
import type { ResolvedRoute } from '@/lib/access';
import { useAccess } from '@/lib/auth';
import { loadSidebarOpened, saveSidebarOpened } from '@/lib/preferences';
import { addView, opensTab, setVisitedViews, useVisitedViews } from '@/lib/visited-views';
import { useApiAreaSource } from '@/components/area-picker/area-api';
import { AreaSourceContext } from '@/components/area-picker/area-source';
import { usePageTitle } from '@/components/use-page-title';
import { Breadcrumbs } from './breadcrumbs';
import { KeepAliveOutlet } from './keep-alive';
import { Navbar } from './navbar';
import { ServiceFloat } from './service-float';
import { Sidebar } from './sidebar';
import { TabBar } from './tab-bar';
import { UpdateNotifier } from './update-notifier';
import { useIsMobile } from './use-is-mobile';
import { Watermark } from './watermark';

const topOf = (route: ResolvedRoute): ResolvedRoute => (route.parent ? topOf(route.parent) : route);

/** The frame every signed-in page lives in (console spec §2). */
export default function AppShell() {
  const { t } = useTranslation();
  const location = useLocation();
  const { user, access } = useAccess();
  const mobile = useIsMobile();
  const areaSource = useApiAreaSource();
  const [opened, setOpened] = useState(loadSidebarOpened);
  const [drawer, setDrawer] = useState(false);
  const views = useVisitedViews();
  const route = access?.byPath.get(location.pathname);
  const path = location.pathname + location.search;
  usePageTitle(route?.meta.title, location.pathname);

  // A page the user may not open (reached by its address) gets no tab: the guard shows /401.
  const mayOpen = !!route && !!access?.canOpen(location.pathname);
  useEffect(() => {
    if (route && mayOpen && opensTab(location.pathname)) setVisitedViews((vs) => addView(vs, { path, title: route.meta.title }));
  }, [route, mayOpen, path, location.pathname]);
  useEffect(() => setDrawer(false), [path]);

  const top = route ? topOf(route) : undefined;
  const sideItems = top && top.fullPath !== HOME_PATH ? access?.menu.find((m) => m.name === top.name)?.children ?? [] : [];
  const showSidebar = !mobile && sideItems.length > 0;
  const collapsed = mobile || !opened;
  const toggle = () => {
    saveSidebarOpened(!opened);
    setOpened(!opened);
  };

  return (
    <AreaSourceContext.Provider value={areaSource}>
      <div className={`fd-shell${mobile ? ' is-mobile' : ''}`}>
        <Navbar mobile={mobile} onOpenDrawer={() => setDrawer(true)} />
        <div className="fd-shell__body">
          {showSidebar && <Sidebar key={top?.name} items={sideItems} searchItems={access?.menu} collapsed={collapsed} title={top?.meta.title} />}
          <div className="fd-shell__content">
            <div className="fd-shell__bar">
              {showSidebar && (
                <Button type="text" size="small" icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />} onClick={toggle} aria-label={t('shell.toggleSidebar')} data-testid="sidebar-toggle" />
              )}
              <Breadcrumbs route={route} />
            </div>
            {views.length > 0 && <TabBar views={views} />}
            <main className="fd-shell__main">
              <KeepAliveOutlet
                openPaths={views.map((v) => v.path)}
                cacheable={() => !!route && mayOpen && !route.meta.noCache && opensTab(location.pathname)}
              />
            </main>
          </div>
        </div>
        {mobile && (
          <Drawer placement="left" open={drawer} onClose={() => setDrawer(false)} size={280} title={t('shell.menu')} styles={{ body: { padding: 0 } }}>
            <Sidebar items={access?.menu ?? []} collapsed={false} />
          </Drawer>
        )}
        <ServiceFloat />
        {user && <Watermark text={user.name} />}
        <UpdateNotifier />
      </div>
    </AreaSourceContext.Provider>
  );
}
