import type { PageTable } from '@/lib/page-table';
import './messages';

/** The pages of 车辆管理 › 车务管理 by route name; each loads as its own chunk. */
export const pages: PageTable = {
  carGuaranteeSlip: () => import('./routes/car-guarantee-slip'),
  carMaintenance: () => import('./routes/car-maintenance'),
  drivingLicense: () => import('./routes/driving-license'),
  insuranceOrder: () => import('./routes/insurance-order'),
  trafficViolations: () => import('./routes/traffic-violations'),
  maintainOrder: () => import('./routes/maintain-order'),
  orderCreate: () => import('./routes/order-create'),
  orderDetail: () => import('./routes/order-detail'),
  priceConfirm: () => import('./routes/price-confirm'),
  maintainRecord: () => import('./routes/maintain-record'),
  maintainRecordDetail: () => import('./routes/maintain-record-detail'),
  orderConfig: () => import('./routes/order-config'),
  statement: () => import('./routes/statement'),
  statementDetail: () => import('./routes/statement-detail'),
  maintainBill: () => import('./routes/maintain-bill'),
  maintainBillDetail: () => import('./routes/maintain-bill-detail'),
  maintainBillNewDetail: () => import('./routes/maintain-bill-new-detail'),
  trafficViolationsDetail: () => import('./routes/traffic-violations-detail'),
};
