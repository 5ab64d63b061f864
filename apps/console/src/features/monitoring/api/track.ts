import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';
import { MONITOR_KEY } from './positions';

export type Track = components['schemas']['TrackBody'];
export type TrackStop = Track['stops'][number];
export type TrackSpeeding = Track['speeding'][number];

export interface TrackRequest {
  vehicleId: string;
  from: string;
  to: string;
}

export function useTrack(request: TrackRequest | undefined) {
  return useQuery({
    queryKey: [...MONITOR_KEY, 'track', request],
    queryFn: () => api.get('/api/v1/monitor/vehicles/{vehicleId}/track', { params: { path: { vehicleId: request?.vehicleId ?? '' }, query: { from: request?.from ?? '', to: request?.to ?? '' } } }),
    enabled: !!request,
    staleTime: 60_000,
  });
}
