import { withProps, type PageLoader, type PageTable } from '@/lib/page-table';
import { USAGE_ROUTE_KINDS } from './components/usage-labels';

const usageRecords = () => import('./routes/usage-records');

/** carRentRecord, purchaseRecord, carReplaceRecord, rentForSaleRecord: one page per usage kind. */
const usagePages: Record<string, PageLoader> = Object.fromEntries(
  Object.entries(USAGE_ROUTE_KINDS).map(([name, kind]) => [name, withProps(usageRecords, { kind })]),
);

/** 车辆管理's pages by route name (资产监控 is its own feature), each its own chunk. */
export const pages: PageTable = {
  carFileList: () => import('./routes/vehicle-list'),
  carFiles: () => import('./routes/vehicle-detail'),
  bindingLog: () => import('./routes/binding-log'),
  addPrivateCar: () => import('./routes/private-cars'),
  driverManagement: () => import('./routes/driver-management'),
  ...usagePages,
};
