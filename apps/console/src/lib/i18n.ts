/**
 * i18next set-up. zh-CN ships in the main bundle; en-US and ja-JP load on demand.
 * The language comes from storage, then the browser, then zh-CN; a change is saved.
 */
import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import zhCN from '@/locales/zh-CN';

export const LANGUAGES = ['zh-CN', 'en-US', 'ja-JP'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_KEY = 'language';

const loaders: Record<Language, () => Promise<{ default: typeof zhCN }>> = {
  'zh-CN': () => Promise.resolve({ default: zhCN }),
  'en-US': () => import('@/locales/en-US'),
  'ja-JP': () => import('@/locales/ja-JP'),
};

function asLanguage(value: string | null | undefined): Language | undefined {
  if (!value) return undefined;
  const exact = LANGUAGES.find((l) => l.toLowerCase() === value.toLowerCase());
  if (exact) return exact;
  const base = value.slice(0, 2).toLowerCase();
  return LANGUAGES.find((l) => l.startsWith(base));
}

/** Storage first, then the browser's languages, else zh-CN. */
export function detectLanguage(stored = localStorage.getItem(LANGUAGE_KEY), browser: readonly string[] = navigator.languages ?? [navigator.language]): Language {
  return asLanguage(stored) ?? browser.map(asLanguage).find(Boolean) ?? 'zh-CN';
}

export const i18n: I18n = i18next.createInstance();

async function ensureBundle(lng: Language): Promise<void> {
  if (i18n.hasResourceBundle(lng, 'translation')) return;
  const { default: bundle } = await loaders[lng]();
  i18n.addResourceBundle(lng, 'translation', bundle, true, true);
}

export async function initI18n(lng: Language = detectLanguage()): Promise<void> {
  await i18n.use(initReactI18next).init({
    lng: 'zh-CN',
    fallbackLng: 'zh-CN',
    resources: { 'zh-CN': { translation: zhCN } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  if (lng !== 'zh-CN') await setLanguage(lng, false);
}

export async function setLanguage(lng: Language, persist = true): Promise<void> {
  await ensureBundle(lng);
  await i18n.changeLanguage(lng);
  document.documentElement.lang = lng;
  if (persist) localStorage.setItem(LANGUAGE_KEY, lng);
}

export function currentLanguage(): Language {
  return asLanguage(i18n.language) ?? 'zh-CN';
}

/**
 * Adds a feature's own namespace (keys `ns:…`) in every language when its chunk
 * loads, so its messages never weigh on the main bundle.
 */
export function addNamespace(ns: string, bundles: Record<Language, object>): void {
  const add = () => {
    for (const [lng, bundle] of Object.entries(bundles)) {
      if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, bundle, true, true);
    }
  };
  // The app initialises i18n before any page loads; a test may import a page first.
  if (i18n.isInitialized) add();
  else i18n.on('initialized', add);
}
