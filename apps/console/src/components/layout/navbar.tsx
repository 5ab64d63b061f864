import { FullscreenExitOutlined, FullscreenOutlined, MenuOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { APP_NAME, MENU_HOVER_DELAY_MS } from '@/config/constants';
import { HOME_PATH, NAV_GROUPS } from '@/config/routes';
import type { MenuItem } from '@/lib/access';
import { useAccess } from '@/lib/auth';
import { toastWarning } from '@/lib/notify';
import { Logo } from '@/components/logo';
import { NoticeApprovalBadges } from './badges';
import { EnergyIntro } from './energy-intro';
import { ErrorLogButton } from './error-log-dialog';
import { MegaMenu } from './mega-menu';
import { MenuIcon } from './menu-icon';
import { MenuLink } from './menu-link';
import { useHoverMenu } from './use-hover-menu';
import { UserMenu } from './user-menu';
import { useBadgeCounts } from './use-badge-counts';

function FullscreenButton() {
  const { t } = useTranslation();
  const [full, setFull] = useState(false);
  useEffect(() => {
    const sync = () => setFull(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', sync);
    return () => document.removeEventListener('fullscreenchange', sync);
  }, []);
  const toggle = () => {
    if (!document.fullscreenEnabled) {
      toastWarning(t('shell.fullscreenUnsupported'));
      return;
    }
    void (document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen());
  };
  return (
    <Tooltip title={t('shell.fullscreen')}>
      <Button type="text" className="fd-nav__icon" icon={full ? <FullscreenExitOutlined /> : <FullscreenOutlined />} aria-label={t('shell.fullscreen')} onClick={toggle} />
    </Tooltip>
  );
}

/** Top navigation: the five groups with hover mega-menus, badges and the user menu. */
export function Navbar({ mobile, onOpenDrawer }: { mobile: boolean; onOpenDrawer: () => void }) {
  const { t } = useTranslation();
  const location = useLocation();
  const { access, principal } = useAccess();
  const hover = useHoverMenu(MENU_HOVER_DELAY_MS);
  const counts = useBadgeCounts();
  const groups = NAV_GROUPS.map((name) => access?.menu.find((m) => m.name === name)).filter((m): m is MenuItem => !!m);
  const active = groups.find((g) => location.pathname === g.path || location.pathname.startsWith(`${g.path}/`)) ?? (location.pathname === HOME_PATH ? groups[0] : undefined);
  const openGroup = groups.find((g) => g.name === hover.open);
  const { close } = hover;
  useEffect(() => close(), [location.pathname, close]);

  return (
    <header className="fd-nav">
      {mobile && <Button type="text" className="fd-nav__icon fd-nav__burger" icon={<MenuOutlined />} aria-label={t('shell.menu')} onClick={onOpenDrawer} />}
      <MenuLink path={HOME_PATH} className="fd-brand fd-nav__brand">
        <Logo size={30} />
        <span className="fd-brand__name">{APP_NAME}</span>
      </MenuLink>
      {!mobile && (
        <nav className="fd-nav__groups" aria-label={t('shell.menu')} data-testid="nav-groups">
          {groups.map((g) => (
            <div
              key={g.name}
              className={`fd-nav__group${active?.name === g.name ? ' is-active' : ''}${hover.open === g.name ? ' is-open' : ''}`}
              onMouseEnter={() => (g.children.length || g.name === 'energyManagement' ? hover.enter(g.name) : hover.close())}
              onMouseLeave={hover.leave}
              data-testid={`nav-${g.name}`}
            >
              <MenuLink path={g.path} onOpen={hover.close}>
                <MenuIcon name={g.icon} />
                <span>{t(g.title)}</span>
              </MenuLink>
            </div>
          ))}
        </nav>
      )}
      <div className="fd-nav__actions">
        <ErrorLogButton />
        <FullscreenButton />
        <NoticeApprovalBadges notices={counts.notices} approvals={counts.approvals} />
        <UserMenu />
      </div>
      {openGroup && (
        <div className="fd-nav__panel" onMouseEnter={hover.stay} onMouseLeave={hover.leave} data-testid="nav-panel">
          <div className="fd-nav__panel-inner">
            {/* A blacklisted enterprise keeps the group and reads why in the introduction. */}
            {openGroup.name === 'energyManagement' && (!principal?.flags.isChargeAccount || principal.flags.inChargeBlacklist) ? (
              <EnergyIntro onNavigate={hover.close} />
            ) : (
              <MegaMenu group={openGroup} onNavigate={hover.close} />
            )}
          </div>
        </div>
      )}
    </header>
  );
}
