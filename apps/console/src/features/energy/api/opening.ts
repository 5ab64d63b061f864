/** The enterprise's applications to open charging (申请记录 of /chargeIntroduce) and their export. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { CHARGING_KEY, exportFilters } from './keys';

export type OpenApplication = components['schemas']['ChargingOpenApplicationBody'];
export type OpenApplicationQuery = NonNullable<operations['list_charging_open_applications']['parameters']['query']>;

export const OPEN_APPLICATIONS_KEY = [...CHARGING_KEY, 'open-applications'] as const;

export const listOpenApplications = (query: OpenApplicationQuery) => api.get('/api/v1/charging/open-applications', { params: { query } });

/** One page of the applications, newest first; asked only while shown. */
export function useOpenApplications(query: OpenApplicationQuery, enabled: boolean) {
  return useQuery({
    queryKey: [...OPEN_APPLICATIONS_KEY, query],
    queryFn: () => listOpenApplications(query),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** Starts the export of the list's filters (every page); the file follows in 导出记录. */
export const exportOpenApplications = (query: OpenApplicationQuery, options: CallOptions) =>
  api.post('/api/v1/charging/open-applications/export', { ...options, params: { query: exportFilters(query) } });
