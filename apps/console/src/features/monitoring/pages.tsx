import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';
import './messages';

/** The pages of 车辆管理 › 资产监控, registered by route name; each loads as its own chunk. */
const pages: Partial<Record<string, LazyExoticComponent<ComponentType>>> = {
  quicklyFindCar: lazy(() => import('./routes/quickly-find-car')),
  fenceDashboard: lazy(() => import('./routes/fence-dashboard')),
  managePage: lazy(() => import('./routes/fence-manage')),
  addFence: lazy(() => import('./routes/fence-edit')),
  fenceDetail: lazy(() => import('./routes/fence-edit')),
  crossRailPage: lazy(() => import('./routes/cross-rail')),
  singInSetPage: lazy(() => import('./routes/sign-in-set')),
  operateMonitor: lazy(() => import('./routes/operate-monitor')),
  trackPlayback: lazy(() => import('./routes/track-playback')),
  lockCarManagement: lazy(() => import('./routes/lock-car-management')),
  lockAndUnlockCar: lazy(() => import('./routes/lock-and-unlock-car')),
  temperatureMonitor: lazy(() => import('./routes/temperature-monitor')),
  authorizationRecord: lazy(() => import('./routes/temperature-authorization-record')),
};

/** Pages of this domain; a route without a page shows 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  const Page = pages[route.name];
  if (!Page) return <ComingSoon title={route.meta.title} />;
  return (
    <Suspense fallback={<PageLoading />}>
      <Page />
    </Suspense>
  );
}
