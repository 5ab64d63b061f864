import { BgColorsOutlined, DownloadOutlined, GiftOutlined, GlobalOutlined, HistoryOutlined, KeyOutlined, LogoutOutlined, SwapOutlined, UserOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Popover } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AVATAR_HOVER_DELAY_MS } from '@/config/constants';
import { LOGIN_LOG_PATH } from '@/config/routes';
import { LANGUAGE_LABELS, switchLanguage } from '@/components/language-switch';
import { logout, useAccess, useHasPermission } from '@/lib/auth';
import { enterprisesQueryOptions } from '@/lib/enterprises';
import { currentLanguage, LANGUAGES } from '@/lib/i18n';
import { toastSuccess } from '@/lib/notify';
import { THEME_COLORS, usePreferences } from '@/lib/preferences';
import { ChangePasswordDialog } from './change-password-dialog';
import { useChangePassword } from './change-password';
import { SwitchEnterpriseDialog } from './switch-enterprise-dialog';

/**
 * Avatar popup (opens after 750 ms): password, enterprise switch (members of
 * several enterprises), login log, coupons, exports, language, theme colour, logout.
 */
export function UserMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user, access } = useAccess();
  const canSeeCoupons = useHasPermission('as:coupon:pageInfo');
  const canSeeLoginLog = access?.canOpen(LOGIN_LOG_PATH) ?? false;
  const { themeColor, setThemeColor } = usePreferences();
  const [open, setOpen] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [switchOpen, setSwitchOpen] = useState(false);
  const { data: enterprises } = useQuery({ ...enterprisesQueryOptions(), enabled: open, staleTime: 5 * 60_000, gcTime: 5 * 60_000 });
  const canSwitch = (enterprises?.length ?? 0) > 1;
  const changePassword = useChangePassword(() => setPasswordOpen(false));
  const lng = currentLanguage();
  const go = (path: string) => {
    setOpen(false);
    navigate(path);
  };

  const content = (
    <div className="fd-user" data-testid="user-menu">
      <div className="fd-user__head">
        <Avatar size={44} src={user?.avatar || undefined} icon={<UserOutlined />} />
        <div>
          <div className="fd-user__name">{user?.name}</div>
          <div className="fd-user__meta">{user?.enterpriseName ?? user?.userName}</div>
          <div className="fd-user__meta">{user?.roles.map((r) => r.name).join(', ')}</div>
        </div>
      </div>
      <ul className="fd-user__items">
        <li>
          <button type="button" onClick={() => { setOpen(false); setPasswordOpen(true); }} data-testid="change-password">
            <KeyOutlined /> {t('user.changePassword')}
          </button>
        </li>
        {canSwitch && (
          <li>
            <button type="button" onClick={() => { setOpen(false); setSwitchOpen(true); }} data-testid="switch-enterprise">
              <SwapOutlined /> {t('enterprise.switch')}
            </button>
          </li>
        )}
        {canSeeLoginLog && (
          <li>
            <button type="button" onClick={() => go(LOGIN_LOG_PATH)}>
              <HistoryOutlined /> {t('route.loginLog')}
            </button>
          </li>
        )}
        {canSeeCoupons && (
          <li>
            <button type="button" onClick={() => go('/myCoupons')}>
              <GiftOutlined /> {t('route.myCoupons')}
            </button>
          </li>
        )}
        <li>
          <button type="button" onClick={() => go('/downloadRecord')}>
            <DownloadOutlined /> {t('route.downloadRecord')}
          </button>
        </li>
      </ul>
      <div className="fd-user__section">
        <div className="fd-user__label"><GlobalOutlined /> {t('settings.language')}</div>
        <div className="fd-user__langs">
          {LANGUAGES.map((l) => (
            <button type="button" key={l} className={l === lng ? 'is-active' : undefined} onClick={() => void switchLanguage(l)} data-testid={`lang-${l}`}>
              {LANGUAGE_LABELS[l]}
            </button>
          ))}
        </div>
      </div>
      <div className="fd-user__section">
        <div className="fd-user__label"><BgColorsOutlined /> {t('settings.theme')}</div>
        <div className="fd-user__colors">
          {THEME_COLORS.map((c) => (
            <button
              type="button"
              key={c}
              aria-label={c}
              className={c === themeColor ? 'is-active' : undefined}
              style={{ background: c }}
              onClick={() => {
                setThemeColor(c);
                toastSuccess(t('settings.themeSwitched'));
              }}
            />
          ))}
        </div>
      </div>
      <button type="button" className="fd-user__logout" onClick={() => void logout()} data-testid="logout">
        <LogoutOutlined /> {t('user.logout')}
      </button>
    </div>
  );

  return (
    <>
      <Popover content={content} open={open} onOpenChange={setOpen} trigger={['hover', 'click']} mouseEnterDelay={AVATAR_HOVER_DELAY_MS / 1000} placement="bottomRight" arrow={false}>
        <button type="button" className="fd-nav__user" data-testid="avatar">
          <Avatar size={30} src={user?.avatar || undefined} icon={<UserOutlined />} />
          <span className="fd-nav__username">{user?.name}</span>
        </button>
      </Popover>
      <ChangePasswordDialog open={passwordOpen} onClose={() => setPasswordOpen(false)} onSubmit={changePassword} />
      <SwitchEnterpriseDialog open={switchOpen} onClose={() => setSwitchOpen(false)} />
    </>
  );
}
