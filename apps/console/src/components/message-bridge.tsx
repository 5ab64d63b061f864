import { App } from 'antd';
import { useEffect } from 'react';
import { installMessageApi } from '@/lib/notify';

/** Hands the themed message API to code outside React (the request client). */
export function MessageBridge() {
  const { message } = App.useApp();
  useEffect(() => installMessageApi(message), [message]);
  return null;
}
