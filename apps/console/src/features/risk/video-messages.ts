/**
 * The video pages' messages (monitor, playback), in their own i18n namespace
 * `video` (keys `video:…`), added when their chunk loads.
 */
import { addNamespace } from '@/lib/i18n';
import enUS from './locales/video-en-US';
import jaJP from './locales/video-ja-JP';
import zhCN from './locales/video-zh-CN';

export const NS = 'video';

addNamespace(NS, { 'zh-CN': zhCN, 'en-US': enUS, 'ja-JP': jaJP });
