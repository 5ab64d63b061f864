/**
 * Session items of console spec §3/§4: tokens and platform id live in cookies for 30 days;
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

/** The personal session of someone who still has to choose an enterprise (console spec §3). */
export function personalToken(): string | undefined {
  return getCookie('personalToken') || undefined;
}

/** The token sent with every call: the enterprise session first, else the personal one. */
export function sessionToken(): string | undefined {
  return enterpriseToken() ?? (getCookie('personalToken') || undefined);
}

export function platformId(): string {
  return getCookie('platformId') || DEFAULT_PLATFORM_ID;
}

/**
 * Stores a new session. A personal one (fresh sign-in of a member of several
 * enterprises) replaces whatever enterprise session the browser still had; an
 * enterprise one sits next to the personal session it was chosen from.
 */
export function saveSession(token: string, kind: SessionKind): void {
  if (kind === 'personal') removeCookie('enterpriseToken');
  setCookie(kind === 'enterprise' ? 'enterpriseToken' : 'personalToken', token, COOKIE_DAYS);
  setCookie('platformId', DEFAULT_PLATFORM_ID, COOKIE_DAYS);
}

/** Forgets the personal session (the server ended it, e.g. after a password change). */
export function dropPersonalToken(): void {
  removeCookie('personalToken');
}

/** Forget every session item (the server call, if any, is the caller's business). */
export function clearSession(): void {
  COOKIE_KEYS.forEach(removeCookie);
  STORAGE_KEYS.forEach((k) => localStorage.removeItem(k));
  sessionStorage.removeItem(VISITED_VIEWS_KEY);
}

/** Paths not worth reopening after the next sign-in: the sign-in pages and the workbench. */
const NOT_REOPENED = /^\/(login|selectNet|dashboard|redirect|401|404)?(\/|\?|$)/;

/**
 * Remembers the page a user was on (or asked for) when the session was missing or
 * ran out, so the next sign-in reopens it (console spec §4, expireAuthPath).
 */
export function rememberExpireAuthPath(path: string): void {
  if (!path.startsWith('/') || NOT_REOPENED.test(path)) return;
  localStorage.setItem(EXPIRE_AUTH_PATH, path);
}

/** A path that needed a fresh sign-in, opened in a new window after the next login. */
export function takeExpireAuthPath(): string | undefined {
  const path = localStorage.getItem(EXPIRE_AUTH_PATH) ?? undefined;
  localStorage.removeItem(EXPIRE_AUTH_PATH);
  return path;
}
