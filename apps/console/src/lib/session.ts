/**
 * Session items of spec §3/§4: tokens and platform id live in cookies for 30 days;
 * everything else a session leaves behind is cleared on logout.
 */
import { COOKIE_DAYS, DEFAULT_PLATFORM_ID } from '@/config/constants';
import { getCookie, removeCookie, setCookie } from './cookies';

export type SessionKind = 'enterprise' | 'personal';

const COOKIE_KEYS = ['enterpriseToken', 'personalToken', 'platformId', 'token'] as const;
const STORAGE_KEYS = ['loginPhone', 'personalInfo', 'userInfo', 'userInfoSafe', 'sysCode', 'spaceCode'] as const;
const EXPIRE_AUTH_PATH = 'expireAuthPath';
export const VISITED_VIEWS_KEY = 'visitedViews';

export function enterpriseToken(): string | undefined {
  return getCookie('enterpriseToken') || undefined;
}

/** The token sent with every call: the enterprise session first, else the personal one. */
export function sessionToken(): string | undefined {
  return enterpriseToken() ?? (getCookie('personalToken') || undefined);
}

export function platformId(): string {
  return getCookie('platformId') || DEFAULT_PLATFORM_ID;
}

export function saveSession(token: string, kind: SessionKind): void {
  setCookie(kind === 'enterprise' ? 'enterpriseToken' : 'personalToken', token, COOKIE_DAYS);
  setCookie('platformId', DEFAULT_PLATFORM_ID, COOKIE_DAYS);
}

/** Forget every session item (the server call, if any, is the caller's business). */
export function clearSession(): void {
  COOKIE_KEYS.forEach(removeCookie);
  STORAGE_KEYS.forEach((k) => localStorage.removeItem(k));
  sessionStorage.removeItem(VISITED_VIEWS_KEY);
}

/** A path that needed a fresh sign-in, opened in a new window after the next login. */
export function takeExpireAuthPath(): string | undefined {
  const path = localStorage.getItem(EXPIRE_AUTH_PATH) ?? undefined;
  localStorage.removeItem(EXPIRE_AUTH_PATH);
  return path;
}
