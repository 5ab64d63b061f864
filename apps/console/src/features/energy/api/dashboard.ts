/** The charging dashboard's figures. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { CHARGING_KEY } from './keys';

export type ChargingDashboard = components['schemas']['ChargingDashboardBody'];
export type DashboardQuery = NonNullable<operations['get_charging_dashboard']['parameters']['query']>;

export function useChargingDashboard(query: DashboardQuery) {
  return useQuery({
    queryKey: [...CHARGING_KEY, 'dashboard', query],
    queryFn: () => api.get('/api/v1/charging/dashboard', { params: { query } }),
    placeholderData: keepPreviousData,
    // Sessions in progress and balances move: refresh every minute while the page shows.
    refetchInterval: 60_000,
  });
}
