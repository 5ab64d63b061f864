import type { PageTable } from '@/lib/page-table';
import './messages';

/** The pages of 车辆管理 › 资产监控 by route name; each loads as its own chunk. */
export const pages: PageTable = {
  quicklyFindCar: () => import('./routes/quickly-find-car'),
  fenceDashboard: () => import('./routes/fence-dashboard'),
  managePage: () => import('./routes/fence-manage'),
  addFence: () => import('./routes/fence-edit'),
  fenceDetail: () => import('./routes/fence-edit'),
  crossRailPage: () => import('./routes/cross-rail'),
  singInSetPage: () => import('./routes/sign-in-set'),
  operateMonitor: () => import('./routes/operate-monitor'),
  trackPlayback: () => import('./routes/track-playback'),
  lockCarManagement: () => import('./routes/lock-car-management'),
  lockAndUnlockCar: () => import('./routes/lock-and-unlock-car'),
  temperatureMonitor: () => import('./routes/temperature-monitor'),
  authorizationRecord: () => import('./routes/temperature-authorization-record'),
};
