/**
 * The monitoring pages' messages, in their own i18n namespace `monitoring`
 * (keys `monitoring:…`), added when this chunk loads: they never weigh on the
 * main bundle, and the app's own language bundles load as before.
 */
import { i18n } from '@/lib/i18n';
import enUS from './locales/en-US';
import jaJP from './locales/ja-JP';
import zhCN from './locales/zh-CN';

export const NS = 'monitoring';

const bundles = { 'zh-CN': zhCN, 'en-US': enUS, 'ja-JP': jaJP } as const;

function addBundles() {
  for (const [lng, bundle] of Object.entries(bundles)) {
    if (!i18n.hasResourceBundle(lng, NS)) i18n.addResourceBundle(lng, NS, bundle, true, true);
  }
}

// The app initialises i18n before any page loads; a test may import a page first.
if (i18n.isInitialized) addBundles();
else i18n.on('initialized', addBundles);
