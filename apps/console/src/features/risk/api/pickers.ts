/** Look-ups of the risk forms' pickers: vehicles by plate or VIN, drivers by name. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** How many matches a picker offers per search. */
export const PICKER_SIZE = 20;

export interface PickerOption {
  value: string;
  label: string;
}

export function useVehicleOptions(keyword: string) {
  return useQuery({
    queryKey: ['risk', 'vehicle-options', keyword],
    queryFn: async (): Promise<PickerOption[]> => {
      const answer = await api.get('/api/v1/vehicles', { params: { query: { page: 1, size: PICKER_SIZE, keyword: keyword || undefined } }, silent: true });
      return answer.list.map((v) => ({ value: v.id, label: v.plateNumber }));
    },
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

export function useDriverOptions(keyword: string) {
  return useQuery({
    queryKey: ['risk', 'driver-options', keyword],
    queryFn: async (): Promise<PickerOption[]> => {
      const answer = await api.get('/api/v1/drivers', { params: { query: { page: 1, size: PICKER_SIZE, name: keyword || undefined } }, silent: true });
      return answer.list.map((d) => ({ value: d.id, label: d.name }));
    },
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** The enterprise's fences as choices of a fence-window rule (the 100 newest: a rule names at most 100). */
export async function loadFenceOptions(): Promise<PickerOption[]> {
  const answer = await api.get('/api/v1/geofences', { params: { query: { page: 1, size: 100 } }, silent: true });
  return answer.list.map((f) => ({ value: f.id, label: f.name }));
}
