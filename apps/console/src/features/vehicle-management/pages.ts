import type { PageTable } from '@/lib/page-table';
import './messages';

/** The pages of 车辆管理 › 车务管理 by route name; each loads as its own chunk. */
export const pages: PageTable = {
  carMaintenance: () => import('./routes/car-maintenance'),
  trafficViolations: () => import('./routes/traffic-violations'),
  trafficViolationsDetail: () => import('./routes/traffic-violations-detail'),
};
