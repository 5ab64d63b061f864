/** Monthly reconciliation statements (chargeReconciliation). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { downloadFrom } from '@/lib/download';
import { MONTH_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { codesOf, STATEMENT_STATUSES } from '../components/labels';
import { CHARGING_KEY } from './keys';

export type Statement = components['schemas']['ReconciliationStatementBody'];
export type StatementQuery = NonNullable<operations['list_reconciliation_statements']['parameters']['query']>;
export type ConfirmStatementForm = components['schemas']['ConfirmStatementForm'];
export type StatementCardLine = components['schemas']['ReconciliationCardLineBody'];

export const STATEMENTS_KEY = [...CHARGING_KEY, 'statements'] as const;

export function statementQuery(filters: ListFilters, page: number, size: number): StatementQuery {
  return {
    page,
    size,
    startMonth: oneOf(filters, 'startMonth') || undefined,
    endMonth: oneOf(filters, 'endMonth') || undefined,
    status: codesOf(manyOf(filters, 'status'), STATEMENT_STATUSES),
  };
}

export const listStatements = (query: StatementQuery) => api.get('/api/v1/charging/statements', { params: { query } });

export function useStatement(id: string | undefined) {
  return useQuery({
    queryKey: [...STATEMENTS_KEY, 'detail', id ?? ''],
    queryFn: () => api.get('/api/v1/charging/statements/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** Confirms (or disputes) against the total the user saw. */
export function useConfirmStatement() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ConfirmStatementForm }) => api.post('/api/v1/charging/statements/{id}/confirm', { params: { path: { id } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: STATEMENTS_KEY }),
  });
}

/** Saves the statement workbook (a signed link the gateway issues). */
export const downloadStatement = (statement: Pick<Statement, 'id' | 'month'>) =>
  downloadFrom(`/api/v1/charging/statements/${encodeURIComponent(statement.id)}/file`, `charging-statement-${statement.month}.xlsx`);

/** The card lines of a statement, by organisation then card number, one page at a time. */
export function useStatementCardLines(id: string | undefined, page: number, size: number) {
  return useQuery({
    queryKey: [...STATEMENTS_KEY, 'card-lines', id ?? '', page, size],
    queryFn: () => api.get('/api/v1/charging/statements/{id}/card-lines', { params: { path: { id: id ?? '' }, query: { page, size } } }),
    enabled: !!id,
    placeholderData: keepPreviousData,
  });
}

/** What generating `month` does at `now`: this month's draft, a closed month's statement, or nothing (a future month). */
export function generateKind(month: string, now = dayjs()): 'draft' | 'closed' | 'future' {
  const current = now.format(MONTH_FORMAT);
  if (month === current) return 'draft';
  return month < current ? 'closed' : 'future';
}

/** Builds a month's statement now (the current month as a draft); the list refreshes. */
export function useGenerateStatement() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (month: string) => api.post('/api/v1/charging/statements/generate', { body: { month } }),
    onSuccess: () => client.invalidateQueries({ queryKey: STATEMENTS_KEY }),
  });
}
