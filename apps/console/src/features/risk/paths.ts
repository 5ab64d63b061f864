/** Addresses of the risk pages (route table: carManagement › riskControll). */
const BASE = '/carManagement/riskControll';

export const PATHS = {
  riskAlarmRecord: `${BASE}/riskAlarmRecord`,
} as const;
