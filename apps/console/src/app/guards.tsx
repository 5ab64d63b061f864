/**
 * Navigation guards in the order of console spec §4: session cookie, then the user and
 * permissions (once per load), then the route's own access; unknown paths go to /404.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { LOGOUT_DELAY_MS } from '@/config/constants';
import { HOME_PATH } from '@/config/routes';
import type { ResolvedRoute } from '@/lib/access';
import { ApiError, Code } from '@/lib/api-client';
import { forceLogout, meQueryOptions, ROLES_MISSING, useAccess } from '@/lib/auth';
import { toastError } from '@/lib/notify';
import { enterpriseToken, rememberExpireAuthPath, sessionToken } from '@/lib/session';
import { LoadErrorResult } from '@/components/load-error';
import { PageLoading } from '@/components/page-loading';
import { DomainPage } from './domain-page';

/** Query parameters a detail link keeps when it has to sign in first. */
const KEPT_PARAMS = ['tDeliveryCode', 'fixedLossCode'];

export function loginRedirect(search: string): string {
  const from = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const key of KEPT_PARAMS) {
    const value = from.get(key);
    if (value) kept.set(key, value);
  }
  const qs = kept.toString();
  return qs ? `/login?${qs}` : '/login';
}

export function RequireSession() {
  const location = useLocation();
  if (!enterpriseToken()) {
    // A personal session still has to choose its enterprise.
    if (sessionToken()) return <Navigate to={{ pathname: '/selectNet', search: location.search }} replace />;
    rememberExpireAuthPath(location.pathname + location.search);
    return <Navigate to={loginRedirect(location.search)} replace />;
  }
  return <Outlet />;
}

/** /selectNet needs a session (personal, or an enterprise one switching). */
export function RequireAnySession({ children }: { children: ReactNode }) {
  const location = useLocation();
  return sessionToken() ? children : <Navigate to={loginRedirect(location.search)} replace />;
}

/** `/login` with a session goes to the workbench. */
export function PublicOnly({ children }: { children: ReactNode }) {
  return enterpriseToken() ? <Navigate to={HOME_PATH} replace /> : children;
}

/**
 * Only an answer that says the session is gone (1001/1016) or user info without
 * roles (console spec §5) ends it; a 5xx or a network blip keeps the session.
 */
export function endsSession(error: unknown): boolean {
  if (error instanceof ApiError) return error.code === Code.SessionInvalid || error.code === Code.SessionEnded;
  return error instanceof Error && error.message === ROLES_MISSING;
}

/**
 * Loads the user and permissions before any page. A session the server ended goes
 * back to login; any other failure shows a retry and keeps the session.
 */
export function SessionBootstrap({ children }: { children: ReactNode }) {
  const { error, isError, isSuccess, refetch, isFetching } = useQuery(meQueryOptions());
  const logout = isError && endsSession(error);
  useEffect(() => {
    if (!logout) return;
    // The request client has already said why for 1001/1016; user info without roles says spec §5's error itself.
    if (error instanceof Error && error.message === ROLES_MISSING) toastError(ROLES_MISSING);
    const timer = setTimeout(forceLogout, LOGOUT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [logout, error]);
  if (isSuccess) return children;
  if (isError && !logout && !isFetching) {
    return (
      <div className="fd-bootstrap-error">
        <LoadErrorResult error={error} onRetry={() => void refetch()} />
      </div>
    );
  }
  return <PageLoading fullscreen />;
}

export function RouteGate({ route }: { route: ResolvedRoute }) {
  const { access } = useAccess();
  if (!access) return null;
  if (route.children.length > 0) return <Navigate to={access.landing(route) ?? '/401'} replace />;
  if (!access.canOpen(route.fullPath)) return <Navigate to="/401" replace />;
  return <DomainPage route={route} />;
}
