/**
 * The energy pages' messages, in their own i18n namespace `energy`
 * (keys `energy:…`), added when this chunk loads: they never weigh on the
 * main bundle, and the app's own language bundles load as before.
 */
import { addNamespace } from '@/lib/i18n';
import enUS from './locales/en-US';
import jaJP from './locales/ja-JP';
import zhCN from './locales/zh-CN';

export const NS = 'energy';

addNamespace(NS, { 'zh-CN': zhCN, 'en-US': enUS, 'ja-JP': jaJP });
