import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { DRIVER_STATUSES, LICENCE_CLASSES } from '../components/driver-labels';
import { codesOf } from '../components/vehicle-labels';
import { VEHICLES_KEY } from './vehicles';

export type Driver = components['schemas']['DriverBody'];
export type DriverForm = components['schemas']['DriverForm'];
export type DriverQuery = NonNullable<operations['list_drivers']['parameters']['query']>;
export type DriverRevealRequest = components['schemas']['DriverRevealRequest'];

export const DRIVERS_KEY = ['drivers'] as const;
export const DRIVER_LIST_KEY = [...DRIVERS_KEY, 'list'] as const;
export const driverKey = (id: string) => [...DRIVERS_KEY, 'detail', id] as const;
/** Under the driver's key, so a saved edit refreshes its log too. */
export const driverLogKey = (id: string) => [...DRIVERS_KEY, 'log', id] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the driver list's query: bound plates (batch), org subtree, name, phone, employee number, codes, licence expiry. */
export function driverQuery(filters: ListFilters, page: number, size: number): DriverQuery {
  const hasVehicle = oneOf(filters, 'hasVehicle');
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    orgId: manyOf(filters, 'orgId'),
    name: text(filters, 'name'),
    phone: text(filters, 'phone'),
    employeeNo: text(filters, 'employeeNo'),
    status: codesOf(manyOf(filters, 'status'), DRIVER_STATUSES),
    licenceClass: codesOf(manyOf(filters, 'licenceClass'), LICENCE_CLASSES),
    hasVehicle: hasVehicle === 'true' ? true : hasVehicle === 'false' ? false : undefined,
    licenceExpireTimeStart: text(filters, 'licenceExpireTimeStart'),
    licenceExpireTimeEnd: text(filters, 'licenceExpireTimeEnd'),
  };
}

export const listDrivers = (query: DriverQuery) => api.get('/api/v1/drivers', { params: { query } });

export function useDriver(id: string | undefined) {
  return useQuery({
    queryKey: driverKey(id ?? ''),
    queryFn: () => api.get('/api/v1/drivers/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** A driver's edit changes the name vehicles show, so vehicles refresh too. */
const refreshAfterChange = (client: ReturnType<typeof useQueryClient>) =>
  Promise.all([client.invalidateQueries({ queryKey: DRIVERS_KEY }), client.invalidateQueries({ queryKey: VEHICLES_KEY })]);

/** Create with an idempotency key: a retried submit creates one driver. */
export function useCreateDriver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: DriverForm; idempotencyKey: string }) => api.post('/api/v1/drivers', { body, idempotencyKey }),
    onSuccess: () => refreshAfterChange(client),
  });
}

export function useUpdateDriver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: DriverForm }) => api.put('/api/v1/drivers/{id}', { params: { path: { id } }, body }),
    onSuccess: () => refreshAfterChange(client),
  });
}

/** One audited reveal of a driver's personal value: one call, one sensitive-view audit row. */
export const revealDriver = (id: string, body: DriverRevealRequest) => api.post('/api/v1/drivers/{id}/reveal', { params: { path: { id } }, body });
