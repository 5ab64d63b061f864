import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, paths } from '@/lib/api/schema';

export type LatestPosition = components['schemas']['LatestPositionBody'];
export type LatestPositions = components['schemas']['LatestPositionsBody'];
export type PositionStatus = NonNullable<LatestPosition['status']>;
export type PositionsQuery = NonNullable<paths['/api/v1/monitor/positions']['get']['parameters']['query']>;

export const MONITOR_KEY = ['monitor'] as const;
export const POSITIONS_KEY = [...MONITOR_KEY, 'positions'] as const;

/** The snapshot every live map starts from; the stream keeps it current. */
export function usePositions(query: PositionsQuery, enabled = true) {
  return useQuery({
    queryKey: [...POSITIONS_KEY, query],
    queryFn: () => api.get('/api/v1/monitor/positions', { params: { query } }),
    enabled,
    // The stream keeps the data fresh; refetch only when asked (reconnect, filter change).
    staleTime: Infinity,
  });
}
