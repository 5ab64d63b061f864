import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { HOME_PATH, routeTree } from '@/config/routes';
import { flatten, resolveTree } from '@/lib/access';
import { PageLoading } from '@/components/page-loading';
import { SHARED_TEMPERATURE_PATH } from '@/features/monitoring/paths';
import { PublicOnly, RequireAnySession, RequireSession, RouteGate, SessionBootstrap } from './guards';

const LoginPage = lazy(() => import('@/features/auth/routes/login'));
const SelectNetPage = lazy(() => import('@/features/auth/routes/select-net'));
const AppShell = lazy(() => import('@/components/layout/app-shell'));
const RedirectView = lazy(() => import('@/components/layout/redirect-view'));
const StatusPage = lazy(() => import('@/components/status-page'));
const SharedTemperaturePage = lazy(() => import('@/features/monitoring/routes/shared-temperature'));

const lazyPage = (node: React.ReactNode) => <Suspense fallback={<PageLoading />}>{node}</Suspense>;

/** Every route of the table is registered; `RouteGate` lets through what the user may open. */
const tableRoutes: RouteObject[] = flatten(resolveTree(routeTree)).map((route) => ({
  path: route.fullPath,
  element: <RouteGate route={route} />,
}));

export const routes: RouteObject[] = [
  { path: '/login', element: <PublicOnly>{lazyPage(<LoginPage />)}</PublicOnly> },
  // A consignee's share link: no session at all, the token in the path decides.
  { path: SHARED_TEMPERATURE_PATH, element: lazyPage(<SharedTemperaturePage />) },
  { path: '/selectNet', element: <RequireAnySession>{lazyPage(<SelectNetPage />)}</RequireAnySession> },
  {
    element: <RequireSession />,
    children: [
      {
        element: <SessionBootstrap>{lazyPage(<AppShell />)}</SessionBootstrap>,
        children: [
          { index: true, element: <Navigate to={HOME_PATH} replace /> },
          ...tableRoutes,
          { path: '/redirect/*', element: lazyPage(<RedirectView />) },
          { path: '/401', element: lazyPage(<StatusPage status={401} />) },
          { path: '/404', element: lazyPage(<StatusPage status={404} />) },
          { path: '*', element: <Navigate to="/404" replace /> },
        ],
      },
    ],
  },
];

export const router = createBrowserRouter(routes);
