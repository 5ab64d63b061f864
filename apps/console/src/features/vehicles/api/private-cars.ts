import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { enumValues } from '@/lib/enum-values';
import { codesOf } from '../components/vehicle-labels';
import { VEHICLES_KEY } from './vehicles';

export type PrivateCar = components['schemas']['PrivateCarBody'];
export type PrivateCarForm = components['schemas']['PrivateCarForm'];
export type PrivateCarStatus = components['schemas']['PrivateCarStatus'];
export type PrivateCarQuery = NonNullable<operations['list_private_cars']['parameters']['query']>;

export const PRIVATE_CAR_STATUSES = enumValues<PrivateCarStatus>()('PENDING_REVIEW', 'APPROVED', 'REJECTED', 'DISABLED');
export const PRIVATE_CARS_KEY = ['private-cars'] as const;

export const privateCarStatusColor = (status: PrivateCarStatus | null | undefined) =>
  status ? { PENDING_REVIEW: 'processing', APPROVED: 'success', REJECTED: 'error', DISABLED: 'default' }[status] : 'default';

export function privateCarQuery(filters: ListFilters, page: number, size: number): PrivateCarQuery {
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    orgId: manyOf(filters, 'orgId'),
    status: codesOf(manyOf(filters, 'status'), PRIVATE_CAR_STATUSES),
    ownerName: oneOf(filters, 'ownerName') || undefined,
  };
}

export const listPrivateCars = (query: PrivateCarQuery) => api.get('/api/v1/private-cars', { params: { query } });

export function useCreatePrivateCar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: PrivateCarForm; idempotencyKey: string }) => api.post('/api/v1/private-cars', { body, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: PRIVATE_CARS_KEY }),
  });
}

/** Approve (the car becomes a vehicle of ownership PRIVATE) or reject with a reason. */
export function useReviewPrivateCar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, approve, rejectReason }: { id: string; approve: boolean; rejectReason: string }) =>
      api.post('/api/v1/private-cars/{id}/review', { params: { path: { id } }, body: { approve, rejectReason } }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: PRIVATE_CARS_KEY }), client.invalidateQueries({ queryKey: VEHICLES_KEY })]),
  });
}
