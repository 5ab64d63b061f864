import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { codesOf, ENERGY_TYPES, USAGE_KINDS, VEHICLE_STATUSES } from '../components/vehicle-labels';

export type Vehicle = components['schemas']['VehicleBody'];
export type VehicleForm = components['schemas']['VehicleForm'];
export type VehicleQuery = NonNullable<operations['list_vehicles']['parameters']['query']>;

export const VEHICLES_KEY = ['vehicles'] as const;
export const VEHICLE_LIST_KEY = [...VEHICLES_KEY, 'list'] as const;
export const vehicleKey = (id: string) => [...VEHICLES_KEY, 'detail', id] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the vehicle list's query: batch plates and VINs, org subtree, brand, model, codes, date ranges. */
export function vehicleQuery(filters: ListFilters, page: number, size: number): VehicleQuery {
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    vin: manyOf(filters, 'vin'),
    orgId: manyOf(filters, 'orgId'),
    brand: text(filters, 'brand'),
    model: text(filters, 'model'),
    status: codesOf(manyOf(filters, 'status'), VEHICLE_STATUSES),
    usageKind: codesOf(manyOf(filters, 'usageKind'), USAGE_KINDS),
    energyType: codesOf(manyOf(filters, 'energyType'), ENERGY_TYPES),
    registerTimeStart: text(filters, 'registerTimeStart'),
    registerTimeEnd: text(filters, 'registerTimeEnd'),
    leaseEndTimeStart: text(filters, 'leaseEndTimeStart'),
    leaseEndTimeEnd: text(filters, 'leaseEndTimeEnd'),
  };
}

export const listVehicles = (query: VehicleQuery) => api.get('/api/v1/vehicles', { params: { query } });


export function useVehicle(id: string | undefined) {
  return useQuery({
    queryKey: vehicleKey(id ?? ''),
    queryFn: () => api.get('/api/v1/vehicles/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** Create with an idempotency key: a retried submit creates one vehicle. */
export function useCreateVehicle() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: VehicleForm; idempotencyKey: string }) => api.post('/api/v1/vehicles', { body, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: VEHICLES_KEY }),
  });
}

export function useUpdateVehicle() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: VehicleForm }) => api.put('/api/v1/vehicles/{id}', { params: { path: { id } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: VEHICLES_KEY }),
  });
}
