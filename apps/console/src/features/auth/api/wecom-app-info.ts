import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, type ApiData } from '@/lib/api-client';
import { QR_STATE_REFRESH_MS } from '@/config/constants';

export type WeComAppInfo = ApiData<'/api/v1/auth/wecom/app-info', 'get'>;

/**
 * Workplace-chat app info for one QR frame (spec `getAppPCInfo`). Every answer
 * carries a fresh `state` (single use, 10 minutes, bound to this browser by an
 * HttpOnly cookie), so it is never cached: each frame asks again, and a frame
 * open for nearly 10 minutes is replaced. Silent: the frame shows its own failure.
 */
export const getWeComAppInfo = () => api.get('/api/v1/auth/wecom/app-info', { silent: true });

export const weComAppInfoQueryOptions = () =>
  queryOptions({
    queryKey: ['auth', 'wecom-app-info'],
    queryFn: getWeComAppInfo,
    staleTime: 0,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    refetchInterval: QR_STATE_REFRESH_MS,
    refetchIntervalInBackground: true,
  });

export function useWeComAppInfo(enabled = true) {
  return useQuery({ ...weComAppInfoQueryOptions(), enabled });
}

/** The frame's address: WeCom's QR page with the app, return address and state. */
export function qrFrameUrl(info: WeComAppInfo): string {
  const url = new URL(info.qrconnect_url);
  url.searchParams.set('appid', info.appid);
  url.searchParams.set('agentid', info.agentid);
  url.searchParams.set('redirect_uri', info.redirect_uri);
  url.searchParams.set('state', info.state);
  // Embedded mode: WeCom posts the return address to this page instead of
  // navigating inside the frame.
  url.searchParams.set('login_type', 'jssdk');
  return url.toString();
}
