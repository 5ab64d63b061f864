/**
 * Binds routes to pages, in one place: a route's domain names the feature whose
 * page table (`features/<domain>/pages.ts`, route name → page loader) renders it.
 * Each table loads as its own chunk, each page as another; a route the table
 * does not list shows 即将上线.
 */
import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import type { Domain } from '@/config/routes';
import type { ResolvedRoute } from '@/lib/access';
import type { PageModule, PageTable } from '@/lib/page-table';
import { PageErrorBoundary } from '@/components/page-error-boundary';
import { PageLoading } from '@/components/page-loading';

export interface DomainPagesProps {
  route: ResolvedRoute;
}

/** Every feature's page table, loaded the first time one of its routes opens. */
const pageTables: Record<Domain, () => Promise<PageTable>> = {
  workbench: () => import('@/features/workbench/pages').then((m) => m.pages),
  vehicles: () => import('@/features/vehicles/pages').then((m) => m.pages),
  monitoring: () => import('@/features/monitoring/pages').then((m) => m.pages),
  risk: () => import('@/features/risk/pages').then((m) => m.pages),
  reports: () => import('@/features/reports/pages').then((m) => m.pages),
  vehicleManagement: () => import('@/features/vehicle-management/pages').then((m) => m.pages),
  finance: () => import('@/features/finance/pages').then((m) => m.pages),
  energy: () => import('@/features/energy/pages').then((m) => m.pages),
  system: () => import('@/features/system/pages').then((m) => m.pages),
  messages: () => import('@/features/messages/pages').then((m) => m.pages),
  account: () => import('@/features/account/pages').then((m) => m.pages),
};

/** The page of a route's table entry, or 即将上线 under the route's title. */
async function loadPage(route: ResolvedRoute): Promise<PageModule> {
  const table = await pageTables[route.domain]();
  if (Object.hasOwn(table, route.name)) return table[route.name]();
  // Loaded here rather than imported: the placeholder stays out of the first bundle.
  const { ComingSoon } = await import('@/components/coming-soon');
  return {
    default: function NotBuiltYet() {
      return <ComingSoon title={route.meta.title} />;
    },
  };
}

/** Made once per route, so a page keeps its identity across renders. */
const pages = new Map<string, LazyExoticComponent<ComponentType>>();

function pageOf(route: ResolvedRoute): LazyExoticComponent<ComponentType> {
  let page = pages.get(route.fullPath);
  if (!page) {
    page = lazy(() => loadPage(route));
    pages.set(route.fullPath, page);
  }
  return page;
}

/** A page of the route's domain; whatever it throws stays inside the layout (error boundary). */
export function DomainPage({ route }: DomainPagesProps) {
  const Page = pageOf(route);
  return (
    <PageErrorBoundary key={route.fullPath}>
      <Suspense fallback={<PageLoading />}>
        <Page />
      </Suspense>
    </PageErrorBoundary>
  );
}
