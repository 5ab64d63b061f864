import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { codesOf, USAGE_STATUSES, type UsageKind } from '../components/vehicle-labels';
import { VEHICLES_KEY } from './vehicles';

export type UsageRecord = components['schemas']['UsageRecordBody'];
export type UsageRecordForm = components['schemas']['UsageRecordForm'];
export type EndUsageRecordForm = components['schemas']['EndUsageRecordForm'];
export type UsageRecordQuery = NonNullable<operations['list_usage_records']['parameters']['query']>;

export const USAGE_RECORDS_KEY = ['usage-records'] as const;
export const usageListKey = (kind: UsageKind) => [...USAGE_RECORDS_KEY, 'list', kind] as const;
export const usageRecordKey = (id: string) => [...USAGE_RECORDS_KEY, 'detail', id] as const;
/** Under the records' key, so a saved edit or an end refreshes the log too. */
export const usageLogKey = (id: string) => [...USAGE_RECORDS_KEY, 'log', id] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to one kind's list query: batch plates and VINs, org subtree, states, contract, counterparty, period. */
export function usageQuery(kind: UsageKind) {
  return (filters: ListFilters, page: number, size: number): UsageRecordQuery => ({
    page,
    size,
    kind,
    plate: manyOf(filters, 'plate'),
    vin: manyOf(filters, 'vin'),
    orgId: manyOf(filters, 'orgId'),
    status: codesOf(manyOf(filters, 'status'), USAGE_STATUSES),
    contractNo: text(filters, 'contractNo'),
    counterparty: text(filters, 'counterparty'),
    periodStart: text(filters, 'periodStart'),
    periodEnd: text(filters, 'periodEnd'),
  });
}

export const listUsageRecords = (query: UsageRecordQuery) => api.get('/api/v1/usage-records', { params: { query } });

export function useUsageRecord(id: string | undefined) {
  return useQuery({
    queryKey: usageRecordKey(id ?? ''),
    queryFn: () => api.get('/api/v1/usage-records/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** A record decides the vehicle's usage kind and state, so vehicles refresh too. */
const refreshAfterChange = (client: ReturnType<typeof useQueryClient>) =>
  Promise.all([client.invalidateQueries({ queryKey: USAGE_RECORDS_KEY }), client.invalidateQueries({ queryKey: VEHICLES_KEY })]);

/** Create with an idempotency key: a retried submit creates one record. A vehicle with an open record answers 4009. */
export function useCreateUsageRecord() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: UsageRecordForm; idempotencyKey: string }) => api.post('/api/v1/usage-records', { body, idempotencyKey }),
    onSuccess: () => refreshAfterChange(client),
  });
}

export function useUpdateUsageRecord() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UsageRecordForm }) => api.put('/api/v1/usage-records/{id}', { params: { path: { id } }, body }),
    onSuccess: () => refreshAfterChange(client),
  });
}

/** Ends a pending or active record (an ended one answers 4009); an empty end time is now. */
export function useEndUsageRecord() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: EndUsageRecordForm }) => api.post('/api/v1/usage-records/{id}/end', { params: { path: { id } }, body }),
    onSuccess: () => refreshAfterChange(client),
  });
}
