import { lazy, Suspense, type ReactNode } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';
import { usageKindOfRoute } from './components/usage-labels';

const VehicleListPage = lazy(() => import('./routes/vehicle-list'));
const VehicleDetailPage = lazy(() => import('./routes/vehicle-detail'));
const BindingLogPage = lazy(() => import('./routes/binding-log'));
const PrivateCarsPage = lazy(() => import('./routes/private-cars'));
const DriverManagementPage = lazy(() => import('./routes/driver-management'));
const UsageRecordsPage = lazy(() => import('./routes/usage-records'));

/** The pages built so far, by route name. */
function page(name: string): ReactNode {
  switch (name) {
    case 'carFileList':
      return <VehicleListPage />;
    case 'carFiles':
      return <VehicleDetailPage />;
    case 'bindingLog':
      return <BindingLogPage />;
    case 'addPrivateCar':
      return <PrivateCarsPage />;
    case 'driverManagement':
      return <DriverManagementPage />;
    default: {
      // carRentRecord, purchaseRecord, carReplaceRecord, rentForSaleRecord: one page per usage kind.
      const kind = usageKindOfRoute(name);
      return kind ? <UsageRecordsPage key={kind} kind={kind} /> : undefined;
    }
  }
}

/** Pages of this domain, loaded as one lazy chunk. Pages not built yet show 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  const built = page(route.name);
  if (built) return <Suspense fallback={<PageLoading />}>{built}</Suspense>;
  return <ComingSoon title={route.meta.title} />;
}
