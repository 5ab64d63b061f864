/** Addresses of the report pages (route table: carManagement › assetsReport). */
const BASE = '/carManagement/assetsReport';

export const PATHS = {
  dailyLog: `${BASE}/operationLog/dailyLog`,
  monthlyLog: `${BASE}/operationLog/monthlyLog`,
  carSafetyReport: `${BASE}/carSafetyReport`,
} as const;
