/** Insurance policies (carGuaranteeSlip and insuranceOrder): list, export, import, detail, record/correct, document links. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FileLink } from '@/components/file-attachment/file-links';
import { api, postForm, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { INSURANCE_KINDS, POLICY_STATUSES } from '../components/insurance-labels';

export type Policy = components['schemas']['PolicyBody'];
export type PolicyDetail = components['schemas']['PolicyDetailBody'];
export type PolicyForm = components['schemas']['PolicyForm'];
export type Coverage = components['schemas']['CoverageBody'];
export type PolicyQuery = NonNullable<operations['list_policies']['parameters']['query']>;

export const POLICIES_KEY = ['vehicle-management', 'insurance'] as const;

/** The permission of the pages, and the one a document link needs besides it. */
export const INSURANCE_PERMISSION = 'as:insurance';
export const POLICY_FILE_PERMISSION = 'as:insurance:file';

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters (the export takes the same, its page ignored). */
export function policyQuery(filters: ListFilters, page: number, size: number): PolicyQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    kinds: codesOf(manyOf(filters, 'kinds'), INSURANCE_KINDS),
    insurers: manyOf(filters, 'insurers'),
    policyNo: text(filters, 'policyNo'),
    statuses: codesOf(manyOf(filters, 'statuses'), POLICY_STATUSES),
    endTimeStart: text(filters, 'endTimeStart'),
    endTimeEnd: text(filters, 'endTimeEnd'),
  };
}

export const listPolicies = (query: PolicyQuery) => api.get('/api/v1/maintenance/insurance/policies', { params: { query } });

export const exportPolicies = (query: PolicyQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/insurance/policies/export', { ...options, params: { query: { ...query, page: undefined, size: undefined } } });

export const importPolicies = (file: File, options: CallOptions) => postForm('/api/v1/maintenance/insurance/policies/import', { file }, options);

export function usePolicyDetail(id: string | undefined) {
  return useQuery({
    queryKey: [...POLICIES_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/maintenance/insurance/policies/{policyId}', { params: { path: { policyId: id ?? '' } } }),
    enabled: !!id,
  });
}

/** Records a new policy (no id) or corrects one; the list and detail are fetched again. */
export function useSavePolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: PolicyForm }) =>
      id
        ? api.put('/api/v1/maintenance/insurance/policies/{policyId}', { params: { path: { policyId: id } }, body })
        : api.post('/api/v1/maintenance/insurance/policies', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: POLICIES_KEY }),
  });
}

/** A fresh signed link (10 minutes) of one document of a policy. */
export function policyDocumentLink(policyId: string, key: string): Promise<FileLink> {
  return api.get('/api/v1/maintenance/insurance/policies/{policyId}/documents/link', { params: { path: { policyId }, query: { key } } });
}
