import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import type { Locale } from 'antd/es/locale';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { MessageBridge } from '@/components/message-bridge';
import { i18n, type Language } from '@/lib/i18n';
import { loadThemeColor, PreferencesContext, saveThemeColor } from '@/lib/preferences';
import { queryClient } from '@/lib/query-client';

const antdLocales: Record<Language, () => Promise<Locale>> = {
  'zh-CN': () => Promise.resolve(zhCN),
  'en-US': () => import('antd/locale/en_US').then((m) => m.default),
  'ja-JP': () => import('antd/locale/ja_JP').then((m) => m.default),
};
const dayjsLocales: Record<Language, () => Promise<string>> = {
  'zh-CN': () => Promise.resolve('zh-cn'),
  'en-US': () => Promise.resolve('en'),
  'ja-JP': () => import('dayjs/locale/ja').then(() => 'ja'),
};


function useAntdLocale(): Locale {
  const [locale, setLocale] = useState<Locale>(zhCN);
  useEffect(() => {
    const apply = (lng: string) => {
      const key = (lng in antdLocales ? lng : 'zh-CN') as Language;
      void antdLocales[key]().then(setLocale);
      void dayjsLocales[key]().then((name) => dayjs.locale(name));
    };
    apply(i18n.language);
    i18n.on('languageChanged', apply);
    return () => i18n.off('languageChanged', apply);
  }, []);
  return locale;
}

export function AppProvider({ children }: { children: ReactNode }) {
  const locale = useAntdLocale();
  const [themeColor, setThemeColor] = useState(loadThemeColor);
  useEffect(() => document.documentElement.style.setProperty('--fd-primary', themeColor), [themeColor]);
  const preferences = useMemo(
    () => ({
      themeColor,
      setThemeColor: (color: string) => {
        saveThemeColor(color);
        setThemeColor(color);
      },
    }),
    [themeColor],
  );
  return (
    <I18nextProvider i18n={i18n}>
      <ConfigProvider
        locale={locale}
        theme={{ token: { colorPrimary: themeColor, borderRadius: 6, fontFamily: "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'Noto Sans CJK SC', sans-serif" } }}
      >
        <AntApp>
          <MessageBridge />
          <PreferencesContext.Provider value={preferences}>
            <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
          </PreferencesContext.Provider>
        </AntApp>
      </ConfigProvider>
    </I18nextProvider>
  );
}
