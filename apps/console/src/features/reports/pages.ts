import type { PageTable } from '@/lib/page-table';
import './messages';

/** The pages of 车辆管理 › 资产报表 by route name; each loads as its own chunk. */
export const pages: PageTable = {
  dailyLog: () => import('./routes/daily-log'),
  monthlyLog: () => import('./routes/monthly-log'),
  carSafetyReport: () => import('./routes/safety-report'),
};
