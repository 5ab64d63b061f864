/** Warnings (warnRecord): the list and acknowledging one or a batch. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { RISK_LEVELS, WARNING_STATUSES, WARNING_TYPES } from '../components/labels';

export type Warning = components['schemas']['WarningBody'];
export type WarningQuery = NonNullable<operations['list_warnings']['parameters']['query']>;

export const WARNINGS_KEY = ['risk', 'warnings'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters. */
export function warningQuery(filters: ListFilters, page: number, size: number): WarningQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    warningTypes: codesOf(manyOf(filters, 'warningTypes'), WARNING_TYPES),
    levels: codesOf(manyOf(filters, 'levels'), RISK_LEVELS),
    statuses: codesOf(manyOf(filters, 'statuses'), WARNING_STATUSES),
    warnTimeStart: text(filters, 'warnTimeStart'),
    warnTimeEnd: text(filters, 'warnTimeEnd'),
  };
}

export const listWarnings = (query: WarningQuery) => api.get('/api/v1/risk/warnings', { params: { query } });

export function useAcknowledgeWarnings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (warningIds: string[]) => api.post('/api/v1/risk/warnings/acknowledge', { body: { warningIds } }),
    onSuccess: () => client.invalidateQueries({ queryKey: WARNINGS_KEY }),
  });
}
