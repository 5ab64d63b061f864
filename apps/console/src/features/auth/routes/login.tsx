import { Button, Card, Spin, Tabs } from 'antd';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { APP_NAME, APP_VERSION } from '@/config/constants';
import { LanguageSwitch } from '@/components/language-switch';
import { Logo } from '@/components/logo';
import { usePageTitle } from '@/components/use-page-title';
import { QrLogin } from '../components/qr-login';
import { useWeComReturn } from '../components/use-wecom-return';

/** Loaded on first use: keeps the sign-in page's first download small. */
const ResetPasswordDialog = lazy(() => import('../components/reset-password-dialog'));
// The QR tab opens first; the phone and account forms (antd's form and
// inputs with them) load when their tab is chosen.
const PhoneLoginForm = lazy(() => import('../components/phone-login-form').then((m) => ({ default: m.PhoneLoginForm })));
const AccountLoginForm = lazy(() => import('../components/account-login-form').then((m) => ({ default: m.AccountLoginForm })));
const onDemand = (form: ReactNode) => <Suspense fallback={<Spin className="fd-login__returning" />}>{form}</Suspense>;

/** Hosts (production portals) where the account tab is hidden; set at build time. */
const ACCOUNT_HIDDEN_HOSTS = (import.meta.env.VITE_ACCOUNT_LOGIN_HIDDEN_HOSTS ?? '').split(',').map((h: string) => h.trim()).filter(Boolean);

export default function LoginPage() {
  const { t } = useTranslation();
  usePageTitle('route.login');
  const { signingIn } = useWeComReturn();
  const [resetOpen, setResetOpen] = useState(false);
  const [tab, setTab] = useState('qr');
  const showAccount = !ACCOUNT_HIDDEN_HOSTS.includes(window.location.hostname);
  const items = [
    { key: 'qr', label: t('login.tabQr'), children: <QrLogin /> },
    { key: 'phone', label: t('login.tabPhone'), children: onDemand(<PhoneLoginForm />) },
    ...(showAccount ? [{ key: 'account', label: t('login.tabAccount'), children: onDemand(<AccountLoginForm />) }] : []),
  ];
  return (
    <div className="fd-login">
      <header className="fd-login__header">
        <div className="fd-brand">
          <Logo size={36} />
          <span className="fd-brand__name">{APP_NAME}</span>
          <span className="fd-brand__sub">{t('app.subtitle')}</span>
        </div>
        <LanguageSwitch className="fd-login__lang" />
      </header>
      <main className="fd-login__main">
        <section className="fd-login__hero">
          <h1>{t('login.heroTitle')}</h1>
          <p>{t('login.heroText')}</p>
          <ul className="fd-login__points">
            <li>{t('login.pointVehicles')}</li>
            <li>{t('login.pointEnergy')}</li>
            <li>{t('login.pointFinance')}</li>
          </ul>
        </section>
        <Card className="fd-login__card" variant="borderless">
          <h2 className="fd-login__welcome">{t('login.welcome')}</h2>
          {signingIn ? (
            <div className="fd-login__returning" data-testid="wecom-signing-in">
              <Spin size="large" />
              <div>{t('login.qrSigningIn')}</div>
            </div>
          ) : (
            <>
              <Tabs activeKey={tab} onChange={setTab} centered items={items} destroyOnHidden />
              {tab !== 'qr' && (
                <div className="fd-login__extra">
                  <Button type="link" size="small" onClick={() => setResetOpen(true)}>
                    {t('reset.link')}
                  </Button>
                </div>
              )}
            </>
          )}
        </Card>
      </main>
      {resetOpen && (
        <Suspense fallback={null}>
          <ResetPasswordDialog open={resetOpen} onClose={() => setResetOpen(false)} />
        </Suspense>
      )}
      <footer className="fd-login__footer">
        © {new Date().getFullYear()} {APP_NAME} · {APP_VERSION}
      </footer>
    </div>
  );
}
