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

/** A page's address with search parameters (blank ones left out). */
export function pathWith(path: string, params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v);
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}
