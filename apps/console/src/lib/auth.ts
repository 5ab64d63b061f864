/**
 * The signed-in user (`GET /api/v1/me`) and session ending, shared by the shell,
 * the guards and the features.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { routeTree } from '@/config/routes';
import { computeAccess, principalOf, type Access, type Principal } from './access';
import { api, type ApiData } from './api-client';
import { clearSession, personalToken, rememberExpireAuthPath, sessionToken } from './session';

export type CurrentUser = ApiData<'/api/v1/me', 'get'>;

/** Spec §5's error for user info without roles. */
export const ROLES_MISSING = 'getInfo: roles must be a non-null array !';

/** Spec §5: user info must carry a non-empty roles array. */
export async function getMe(): Promise<CurrentUser> {
  const me = await api.get('/api/v1/me', { noRedirect: true });
  if (!Array.isArray(me.roles) || me.roles.length === 0) {
    throw new Error(ROLES_MISSING);
  }
  return me;
}

export const meQueryOptions = () =>
  queryOptions({ queryKey: ['me'], queryFn: getMe, staleTime: Infinity, gcTime: Infinity });

export function useUser() {
  return useQuery(meQueryOptions());
}

export function principalOfUser(user: CurrentUser): Principal {
  return principalOf(user.permissions, user.flags);
}

/** Menu and guards for the signed-in user (undefined until /me answered). */
export function useAccess(): { user?: CurrentUser; access?: Access; principal?: Principal } {
  const { data: user } = useUser();
  return useMemo(() => {
    if (!user) return {};
    const principal = principalOfUser(user);
    return { user, principal, access: computeAccess(routeTree, principal) };
  }, [user]);
}

export function useHasPermission(value: string): boolean {
  const { principal } = useAccess();
  return principal?.permissions.has(value) ?? false;
}

/** Ends one session on the server; failures do not matter (it ends locally anyway). */
export async function endSession(token: string | undefined): Promise<void> {
  if (!token) return;
  try {
    await api.post('/api/v1/auth/logout', { silent: true, noRedirect: true, token });
  } catch {
    // The session ends locally whatever the server says.
  }
}

/**
 * Spec §4: logout calls the server, clears the session and reloads on /login.
 * The personal session an enterprise was chosen from ends too.
 */
export async function logout(): Promise<void> {
  const current = sessionToken();
  const personal = personalToken();
  await Promise.all([endSession(current), personal !== current ? endSession(personal) : undefined]);
  clearSession();
  window.location.assign('/login');
}

/** Forced logout: the same without the server call; the page is reopened after the next sign-in. */
export function forceLogout(): void {
  rememberExpireAuthPath(window.location.pathname + window.location.search);
  clearSession();
  window.location.assign('/login');
}
