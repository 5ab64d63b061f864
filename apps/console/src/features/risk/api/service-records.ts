/** Customer-service records (customerServiceRecord): the list, create and update. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { SERVICE_CATEGORIES, SERVICE_CHANNELS, SERVICE_STATUSES } from '../components/labels';

export type ServiceRecord = components['schemas']['ServiceRecordBody'];
export type ServiceRecordForm = components['schemas']['ServiceRecordForm'];
export type ServiceRecordQuery = NonNullable<operations['list_service_records']['parameters']['query']>;

export const SERVICE_RECORDS_KEY = ['risk', 'service-records'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters. */
export function serviceRecordQuery(filters: ListFilters, page: number, size: number): ServiceRecordQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    ticketNo: text(filters, 'ticketNo'),
    channels: codesOf(manyOf(filters, 'channels'), SERVICE_CHANNELS),
    categories: codesOf(manyOf(filters, 'categories'), SERVICE_CATEGORIES),
    statuses: codesOf(manyOf(filters, 'statuses'), SERVICE_STATUSES),
    startTimeStart: text(filters, 'startTimeStart'),
    startTimeEnd: text(filters, 'startTimeEnd'),
  };
}

export const listServiceRecords = (query: ServiceRecordQuery) => api.get('/api/v1/risk/service-records', { params: { query } });

export function useSaveServiceRecord() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: ServiceRecordForm }) =>
      id ? api.put('/api/v1/risk/service-records/{recordId}', { params: { path: { recordId: id } }, body }) : api.post('/api/v1/risk/service-records', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: SERVICE_RECORDS_KEY }),
  });
}
