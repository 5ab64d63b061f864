import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import type { Domain } from '@/config/routes';
import type { ResolvedRoute } from '@/lib/access';
import { PageErrorBoundary } from '@/components/page-error-boundary';
import { PageLoading } from '@/components/page-loading';

export interface DomainPagesProps {
  route: ResolvedRoute;
}

/** One lazily loaded chunk per domain (feature folder). */
const domains: Record<Domain, LazyExoticComponent<ComponentType<DomainPagesProps>>> = {
  workbench: lazy(() => import('@/features/workbench/pages')),
  vehicles: lazy(() => import('@/features/vehicles/pages')),
  monitoring: lazy(() => import('@/features/monitoring/pages')),
  finance: lazy(() => import('@/features/finance/pages')),
  charging: lazy(() => import('@/features/charging/pages')),
  system: lazy(() => import('@/features/system/pages')),
  messages: lazy(() => import('@/features/messages/pages')),
  account: lazy(() => import('@/features/account/pages')),
};

/** A page of the route's domain; whatever it throws stays inside the layout (error boundary). */
export function DomainPage({ route }: DomainPagesProps) {
  const Pages = domains[route.domain];
  return (
    <PageErrorBoundary key={route.fullPath}>
      <Suspense fallback={<PageLoading />}>
        <Pages route={route} />
      </Suspense>
    </PageErrorBoundary>
  );
}
