import { queryOptions, useQuery } from '@tanstack/react-query';
import { callUnpublished } from '@/lib/api-client';

export interface WeComAppInfo {
  appid: string;
  redirect_uri: string;
}

function isAppInfo(data: unknown): data is WeComAppInfo {
  const d = data as Partial<WeComAppInfo> | null;
  return typeof d?.appid === 'string' && typeof d.redirect_uri === 'string';
}

/**
 * Workplace-chat app info for the QR frame (identity issue: not in the OpenAPI
 * document yet). Silent: the frame shows its own failure state.
 */
export async function getWeComAppInfo(): Promise<WeComAppInfo> {
  const data = await callUnpublished('get', '/api/v1/auth/wecom/app-info', { silent: true });
  if (!isAppInfo(data)) throw new Error('workplace-chat app info: unexpected answer');
  return data;
}

export const weComAppInfoQueryOptions = () =>
  queryOptions({ queryKey: ['auth', 'wecom-app-info'], queryFn: getWeComAppInfo, staleTime: 5 * 60_000, retry: false });

export function useWeComAppInfo() {
  return useQuery(weComAppInfoQueryOptions());
}
