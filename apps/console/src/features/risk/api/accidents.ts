/** Accidents (carAccidentRecord): the list, one accident with its operation log, create and update. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { ACCIDENT_SEVERITIES, ACCIDENT_STATUSES } from '../components/labels';

export type Accident = components['schemas']['AccidentBody'];
export type AccidentDetail = components['schemas']['AccidentDetailBody'];
export type AccidentForm = components['schemas']['AccidentForm'];
export type AccidentQuery = NonNullable<operations['list_accidents']['parameters']['query']>;

export const ACCIDENTS_KEY = ['risk', 'accidents'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters. */
export function accidentQuery(filters: ListFilters, page: number, size: number): AccidentQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    caseNo: text(filters, 'caseNo'),
    statuses: codesOf(manyOf(filters, 'statuses'), ACCIDENT_STATUSES),
    severities: codesOf(manyOf(filters, 'severities'), ACCIDENT_SEVERITIES),
    accidentTimeStart: text(filters, 'accidentTimeStart'),
    accidentTimeEnd: text(filters, 'accidentTimeEnd'),
  };
}

export const listAccidents = (query: AccidentQuery) => api.get('/api/v1/risk/accidents', { params: { query } });

export function useAccidentDetail(id: string | undefined) {
  return useQuery({
    queryKey: [...ACCIDENTS_KEY, 'detail', id ?? ''],
    queryFn: () => api.get('/api/v1/risk/accidents/{accidentId}', { params: { path: { accidentId: id ?? '' } } }),
    enabled: !!id,
  });
}

/** A save changes the list, the detail and its log: all are fetched again. */
export function useSaveAccident() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: AccidentForm }) =>
      id ? api.put('/api/v1/risk/accidents/{accidentId}', { params: { path: { accidentId: id } }, body }) : api.post('/api/v1/risk/accidents', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ACCIDENTS_KEY }),
  });
}
