/**
 * One place that shows toasts, so non-React code (the request client) uses the
 * themed antd message API installed by the app shell.
 */
import { message } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';
import { TOAST_SECONDS } from '@/config/constants';

let api: MessageInstance = message;

export function installMessageApi(instance: MessageInstance): void {
  api = instance;
}

/** Message text is always passed as a plain string: React renders it as text, never HTML. */
export function toastError(text: string): void {
  void api.error({ content: text, duration: TOAST_SECONDS, key: text });
}

export function toastSuccess(text: string): void {
  void api.success({ content: text, duration: TOAST_SECONDS });
}

export function toastWarning(text: string): void {
  void api.warning({ content: text, duration: TOAST_SECONDS });
}
