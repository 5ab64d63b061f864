/** Traffic violations (trafficViolations and its detail): list, export, detail, handle, pay, assign. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, postForm, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { serveOrgCityKeyOf } from '@/components/area-picker/serve-org-api';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { VIOLATION_STATUSES } from '../components/violation-labels';

export type Violation = components['schemas']['ViolationBody'];
export type ViolationDetail = components['schemas']['ViolationDetailBody'];
export type ViolationQuery = NonNullable<
  operations['list_violations']['parameters']['query']
>;

export const VIOLATIONS_KEY = ['vehicle-management', 'violations'] as const;

const text = (filters: ListFilters, key: string) =>
  oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters (the export takes the same, its page ignored). */
export function violationQuery(
  filters: ListFilters,
  page: number,
  size: number,
): ViolationQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    driverId: text(filters, 'driverId'),
    statuses: codesOf(manyOf(filters, 'statuses'), VIOLATION_STATUSES),
    violationTimeStart: text(filters, 'violationTimeStart'),
    violationTimeEnd: text(filters, 'violationTimeEnd'),
    // Where it happened: the city of the serving organisation chosen.
    cityCode: serveOrgCityKeyOf(oneOf(filters, 'serveCity'))?.cityCode,
  };
}

export const listViolations = (query: ViolationQuery) =>
  api.get('/api/v1/maintenance/violations', { params: { query } });

export const exportViolations = (query: ViolationQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/violations/export', {
    ...options,
    params: { query },
  });

export function useViolationDetail(id: string) {
  return useQuery({
    queryKey: [...VIOLATIONS_KEY, 'detail', id],
    queryFn: () =>
      api.get('/api/v1/maintenance/violations/{violationId}', {
        params: { path: { violationId: id } },
      }),
    enabled: !!id,
  });
}

/** Every move changes the list and the detail: the subject is fetched again. */
function useViolationMove<Body>(
  call: (id: string, body: Body) => Promise<Violation>,
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: Body }) => call(id, body),
    onSuccess: () => client.invalidateQueries({ queryKey: VIOLATIONS_KEY }),
  });
}

export const useHandleViolation = () =>
  useViolationMove(
    (id: string, body: components['schemas']['HandleViolationForm']) =>
      api.post('/api/v1/maintenance/violations/{violationId}/handle', {
        params: { path: { violationId: id } },
        body,
      }),
  );

export const usePayViolation = () =>
  useViolationMove(
    (id: string, body: components['schemas']['PayViolationForm']) =>
      api.post('/api/v1/maintenance/violations/{violationId}/pay', {
        params: { path: { violationId: id } },
        body,
      }),
  );

export const useAssignViolation = () =>
  useViolationMove(
    (id: string, body: components['schemas']['AssignViolationForm']) =>
      api.post('/api/v1/maintenance/violations/{violationId}/assign', {
        params: { path: { violationId: id } },
        body,
      }),
  );

/** Imports violations from an xls/xlsx: all rows or none, upserted by decision number. */
export const importViolations = (file: File, options: CallOptions) =>
  postForm('/api/v1/maintenance/violations/import', { file }, options);
