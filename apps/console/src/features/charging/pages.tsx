import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';
import { OpenedGate } from './components/opened-gate';
import './messages';

/** The pages of 能源管理 › 充电管理 (and 充电行为分析 under 车辆管理), registered by route name; each loads as its own chunk. */
const pages: Partial<Record<string, LazyExoticComponent<ComponentType>>> = {
  chargeDashboard: lazy(() => import('./routes/charge-dashboard')),
  accountBalanceAllocation: lazy(() => import('./routes/account-balance-allocation')),
  balanceAllocationRecord: lazy(() => import('./routes/balance-allocation-record')),
  juniorElectricCard: lazy(() => import('./routes/junior-electric-card')),
  electricCard: lazy(() => import('./routes/electric-card')),
  consumeRecord: lazy(() => import('./routes/consume-record')),
  countChangeRecord: lazy(() => import('./routes/count-change-record')),
  scanPlateRecord: lazy(() => import('./routes/scan-plate-record')),
  chargeReconciliation: lazy(() => import('./routes/charge-reconciliation')),
  behaviorAnalyze: lazy(() => import('./routes/behavior-analyze')),
};

const ChargeIntroducePage = lazy(() => import('./routes/charge-introduce'));

/** Pages of this domain; every charging page needs an opened charging account, the introduction does not. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  if (route.name === 'chargeIntroduce') {
    return (
      <Suspense fallback={<PageLoading />}>
        <ChargeIntroducePage />
      </Suspense>
    );
  }
  const Page = pages[route.name];
  if (!Page) return <ComingSoon title={route.meta.title} />;
  return (
    <OpenedGate>
      <Suspense fallback={<PageLoading />}>
        <Page />
      </Suspense>
    </OpenedGate>
  );
}
