import type { PageTable } from '@/lib/page-table';
import './messages';

/** The pages of 车辆管理 › 风险管控 by route name; each loads as its own chunk. */
export const pages: PageTable = {
  riskAlarmRecord: () => import('./routes/risk-alarm-record'),
  carAccidentRecord: () => import('./routes/car-accident-record'),
  customerServiceRecord: () => import('./routes/customer-service-record'),
  warnRecord: () => import('./routes/warn-record'),
  videoMonitor: () => import('./routes/video-monitor'),
  videoPlayback: () => import('./routes/video-playback'),
};
