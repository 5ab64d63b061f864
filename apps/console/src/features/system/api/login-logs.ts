import dayjs from 'dayjs';
import { api, type ApiData } from '@/lib/api-client';
import type { operations } from '@/lib/api/schema';

export type LoginLogQuery = NonNullable<operations['list_login_logs']['parameters']['query']>;
export type LoginLogPage = ApiData<'/api/v1/auth/login-logs', 'get'>;
export type LoginLogEntry = LoginLogPage['list'][number];

/** loginType values of the log (console spec §3). */
export const LOGIN_TYPES = [1, 2, 3] as const;

/**
 * The filter bar gives local `yyyy-MM-dd HH:mm:ss`; the server reads those as
 * China time, so send RFC 3339 with this browser's offset instead.
 */
export function toServerTime(local: unknown): string | undefined {
  if (typeof local !== 'string' || !local) return undefined;
  const parsed = dayjs(local);
  return parsed.isValid() ? parsed.format() : undefined;
}

/** Filter-bar values to the list's query parameters. */
export function loginLogQuery(filters: Record<string, unknown>, page: number, size: number): LoginLogQuery {
  const loginType = Number(filters.loginType);
  const result = filters.succeeded;
  const principal = typeof filters.principal === 'string' ? filters.principal.trim() : '';
  return {
    page,
    size,
    loginType: LOGIN_TYPES.includes(loginType as 1) ? loginType : undefined,
    succeeded: result === 'success' ? true : result === 'failure' ? false : undefined,
    startTime: toServerTime(filters.startTime),
    endTime: toServerTime(filters.endTime),
    principal: principal || undefined,
  };
}

export const LOGIN_LOGS_KEY = ['system', 'login-logs'] as const;

/** `loginfoListPage`: sign-in attempts of the enterprise's members, newest first. */
export const getLoginLogs = (query: LoginLogQuery) => api.get('/api/v1/auth/login-logs', { params: { query } });
