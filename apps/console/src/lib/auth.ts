/**
 * The signed-in user (`GET /api/v1/me`) and session ending, shared by the shell,
 * the guards and the features.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { routeTree } from '@/config/routes';
import { computeAccess, principalOf, type Access, type Principal } from './access';
import { api, type ApiData } from './api-client';
import { clearSession } from './session';

export type CurrentUser = ApiData<'/api/v1/me', 'get'>;

/** Spec §5: user info must carry a non-empty roles array. */
export async function getMe(): Promise<CurrentUser> {
  const me = await api.get('/api/v1/me', { noRedirect: true });
  if (!Array.isArray(me.roles) || me.roles.length === 0) {
    throw new Error('getInfo: roles must be a non-null array !');
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

/** Spec §4: logout calls the server, clears the session and reloads on /login. */
export async function logout(): Promise<void> {
  try {
    await api.post('/api/v1/auth/logout', { silent: true, noRedirect: true });
  } catch {
    // The session ends locally whatever the server says.
  }
  clearSession();
  window.location.assign('/login');
}

/** Forced logout: the same without the server call. */
export function forceLogout(): void {
  clearSession();
  window.location.assign('/login');
}
