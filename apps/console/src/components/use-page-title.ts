import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { APP_NAME } from '@/config/constants';

/** Page title from route meta, '<title> - 车管家'; the workbench (and no title) is plain 车管家. */
export function pageTitle(title: string | undefined): string {
  return title ? `${title} - ${APP_NAME}` : APP_NAME;
}

export function usePageTitle(titleKey: string | undefined, path?: string) {
  const { t, i18n } = useTranslation();
  useEffect(() => {
    document.title = pageTitle(titleKey && path !== '/dashboard' ? t(titleKey) : undefined);
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (icon) icon.href = path === '/carFiles' ? '/favicon-car-files.svg' : '/favicon.svg';
  }, [titleKey, path, t, i18n.language]);
}
