import { behind, type PageTable } from '@/lib/page-table';
import { OpenedGate } from './components/opened-gate';
import './messages';

/**
 * The pages of 能源管理 › 充电管理 (and 充电行为分析 under 车辆管理) by route name,
 * each its own chunk; every one but the introduction needs an opened charging account.
 */
export const pages: PageTable = {
  chargeIntroduce: () => import('./routes/charge-introduce'),
  chargeDashboard: behind(OpenedGate, () => import('./routes/charge-dashboard')),
  accountBalanceAllocation: behind(OpenedGate, () => import('./routes/account-balance-allocation')),
  balanceAllocationRecord: behind(OpenedGate, () => import('./routes/balance-allocation-record')),
  juniorElectricCard: behind(OpenedGate, () => import('./routes/junior-electric-card')),
  electricCard: behind(OpenedGate, () => import('./routes/electric-card')),
  consumeRecord: behind(OpenedGate, () => import('./routes/consume-record')),
  countChangeRecord: behind(OpenedGate, () => import('./routes/count-change-record')),
  scanPlateRecord: behind(OpenedGate, () => import('./routes/scan-plate-record')),
  chargeReconciliation: behind(OpenedGate, () => import('./routes/charge-reconciliation')),
  behaviorAnalyze: behind(OpenedGate, () => import('./routes/behavior-analyze')),
};
