import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { VEHICLES_KEY } from './vehicles';

/** How many vehicles the picker offers per search. */
export const VEHICLE_PICKER_SIZE = 20;

export interface VehicleOption {
  value: string;
  label: string;
}

/** Vehicles whose plate or VIN contains `keyword` (newest first), as picker options labelled by plate. */
export function useVehicleOptions(keyword: string, enabled = true) {
  return useQuery({
    queryKey: [...VEHICLES_KEY, 'picker', keyword],
    queryFn: async (): Promise<VehicleOption[]> => {
      const answer = await api.get('/api/v1/vehicles', { params: { query: { page: 1, size: VEHICLE_PICKER_SIZE, keyword: keyword || undefined } } });
      return answer.list.map((v) => ({ value: v.id, label: v.plateNumber }));
    },
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    enabled,
  });
}
