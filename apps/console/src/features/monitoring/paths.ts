/** Addresses of the monitoring pages (route table: carManagement › assetsMonitor). */
const BASE = '/carManagement/assetsMonitor';

export const PATHS = {
  fenceDashboard: `${BASE}/fenceDashboard`,
  operateMonitor: `${BASE}/operateMonitor`,
  addFence: `${BASE}/addFence`,
  singInSetPage: `${BASE}/singInSetPage`,
  managePage: `${BASE}/managePage`,
  crossRailPage: `${BASE}/crossRailPage`,
  fenceDetail: `${BASE}/fenceDetail`,
  quicklyFindCar: `${BASE}/quicklyFindCar`,
  lockCarManagement: `${BASE}/lockCarManagement`,
  lockAndUnlockCar: `${BASE}/lockAndUnlockCar`,
  trackPlayback: `${BASE}/trackPlayback`,
  temperatureMonitor: `${BASE}/temperatureMonitor`,
  authorizationRecord: `${BASE}/authorizationRecord`,
} as const;

/** The page a consignee's share link opens, outside the shell and without a session. */
export const SHARED_TEMPERATURE_PATH = '/share/temperature/:token';

export { pathWith } from '@/lib/url';
