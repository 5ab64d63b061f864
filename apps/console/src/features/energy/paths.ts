/** Addresses of the charging pages (route table: energyManagement › charge). */
const BASE = '/energyManagement/charge';

export const PATHS = {
  dashboard: `${BASE}/dashboard`,
  accountBalanceAllocation: `${BASE}/accountManagement/accountBalanceAllocation`,
  balanceAllocationRecord: `${BASE}/accountManagement/balanceAllocationRecord`,
  juniorElectricCard: `${BASE}/accountManagement/juniorElectricCard`,
  electricCard: `${BASE}/chargeManagement/electricCard`,
  consumeRecord: `${BASE}/chargeManagement/consumeRecord`,
  countChangeRecord: `${BASE}/chargeManagement/countChangeRecord`,
  scanPlateRecord: `${BASE}/chargeManagement/scanPlateRecord`,
  chargeReconciliation: `${BASE}/chargeReconciliation`,
  chargeIntroduce: '/chargeIntroduce',
  behaviorAnalyze: '/carManagement/assetsReport/behaviorAnalyze',
} as const;

export { pathWith } from '@/lib/url';
