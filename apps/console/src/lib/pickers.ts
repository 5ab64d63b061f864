/**
 * The forms' vehicle and driver pickers: any signed-in member may search
 * the vehicles and drivers of their data scope (`/api/v1/pickers/…`), so a
 * form works for users without the asset pages' permissions.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './api-client';

export interface PickerOption {
  value: string;
  label: string;
}

const PICKERS_KEY = ['pickers'] as const;
const pickerOptions = { placeholderData: keepPreviousData, staleTime: 30_000 } as const;

/** Vehicles whose plate or VIN contains `keyword` (newest first), labelled by plate. */
export function useVehicleOptions(keyword: string, enabled = true) {
  return useQuery({
    queryKey: [...PICKERS_KEY, 'vehicles', keyword],
    queryFn: async (): Promise<PickerOption[]> => {
      const found = await api.get('/api/v1/pickers/vehicles', { params: { query: { keyword: keyword || undefined } }, silent: true });
      return found.map((v) => ({ value: v.id, label: v.plateNumber }));
    },
    ...pickerOptions,
    enabled,
  });
}

/** Drivers whose name contains `keyword` (newest first). */
export function useDriverOptions(keyword: string, enabled = true) {
  return useQuery({
    queryKey: [...PICKERS_KEY, 'drivers', keyword],
    queryFn: async (): Promise<PickerOption[]> => {
      const found = await api.get('/api/v1/pickers/drivers', { params: { query: { keyword: keyword || undefined } }, silent: true });
      return found.map((d) => ({ value: d.id, label: d.name }));
    },
    ...pickerOptions,
    enabled,
  });
}
