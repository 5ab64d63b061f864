/**
 * The finance pages' messages, in their own i18n namespace `finance`
 * (keys `finance:…`), added when this chunk loads.
 */
import { addNamespace } from '@/lib/i18n';
import enUS from './locales/en-US';
import jaJP from './locales/ja-JP';
import zhCN from './locales/zh-CN';

export const NS = 'finance';

addNamespace(NS, { 'zh-CN': zhCN, 'en-US': enUS, 'ja-JP': jaJP });
