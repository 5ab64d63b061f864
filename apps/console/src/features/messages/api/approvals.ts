import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { APPROVAL_KEY } from '@/lib/counts';

export type Approval = components['schemas']['ApprovalBody'];
export type ApprovalStep = components['schemas']['ApprovalStepBody'];
export type ApprovalQuery = NonNullable<operations['list_approvals']['parameters']['query']>;

/** 1 pending, 2 approved, 3 rejected, 4 withdrawn. */
export const APPROVAL_STATUSES = [1, 2, 3, 4] as const;
export const APPROVAL_PENDING = 1;
/** 1 vehicle allotment, 2 charge allocation, 3 refund, 4 invoice. */
export const APPROVAL_KINDS = [1, 2, 3, 4, 5] as const;
/** The server's limit on a decision comment. */
export const COMMENT_MAX = 200;

export const approvalStatusColor = (status: number): string =>
  ({ 1: 'processing', 2: 'success', 3: 'error', 4: 'default' })[status] ?? 'default';

/** Filter-bar values to the list's query parameters (status and kind by number, blanks left out). */
export function approvalQuery(filters: Record<string, unknown>, page: number, size: number): ApprovalQuery {
  const status = Number(filters.status);
  const kind = Number(filters.kind);
  return {
    page,
    size,
    ...(APPROVAL_STATUSES.includes(status as 1) ? { status } : {}),
    ...(APPROVAL_KINDS.includes(kind as 1) ? { kind } : {}),
  };
}

/**
 * Checks a decision before it is sent: a rejection needs a reason, and no
 * comment may exceed 200 characters. Gives the i18n key of the problem.
 */
export function decisionError(approve: boolean, comment: string): string | undefined {
  const text = comment.trim();
  if (!approve && !text) return 'approval.reasonRequired';
  if (text.length > COMMENT_MAX) return 'approval.commentTooLong';
  return undefined;
}

export const APPROVAL_LIST_KEY = [...APPROVAL_KEY, 'list'] as const;

export const listApprovals = (query: ApprovalQuery) => api.get('/api/v1/approvals', { params: { query } });

/** `/approval/export`: the list's filters (not its paging) as an export job. */
export function exportApprovals(query: ApprovalQuery, options: CallOptions) {
  const { status, kind } = query;
  return api.post('/api/v1/approvals/export', { ...options, params: { query: { status, kind } } });
}

export function useApproval(id: string) {
  return useQuery({
    queryKey: [...APPROVAL_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/approvals/{id}', { params: { path: { id } } }),
    enabled: !!id,
  });
}

/** `updateApprovalStatus`: approve or reject; refreshes lists, the detail and the badge (also on 4009). */
export function useDecideApproval(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { approve: boolean; comment: string }) => api.post('/api/v1/approvals/{id}/decision', { params: { path: { id } }, body }),
    onSettled: () => client.invalidateQueries({ queryKey: APPROVAL_KEY }),
  });
}

/** Business-detail fields the console names; others show under their own key. */
export const KNOWN_DETAIL_FIELDS = ['fromOrg', 'toOrg', 'vin', 'amountFen', 'reason'] as const;

/**
 * The kind's business details as label/value pairs: amounts in fen read as
 * yuan (¥1,200.00), nested values as JSON text, empty values left out.
 */
export function detailEntries(detail: unknown): { key: string; value: string }[] {
  if (!detail || typeof detail !== 'object' || Array.isArray(detail)) return [];
  return Object.entries(detail as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([key, v]) => {
      if (key === 'amountFen' && typeof v === 'number') {
        return { key, value: `¥${(v / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}` };
      }
      return { key, value: typeof v === 'object' ? JSON.stringify(v) : String(v) };
    });
}
