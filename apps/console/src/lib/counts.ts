/**
 * The shell's badge counts (unread notices, pending approvals) and the query
 * keys their pages share, so marking a notice read or deciding an approval
 * refreshes the badge (`invalidateQueries({ queryKey: NOTICE_KEY })`).
 */
import { useQuery } from '@tanstack/react-query';
import { api } from './api-client';

/** Every notice query (count, lists, details) starts with this key. */
export const NOTICE_KEY = ['notices'] as const;
/** Every approval query (count, lists, details) starts with this key. */
export const APPROVAL_KEY = ['approvals'] as const;

/** Badges refresh this often while the console is open, and on focus. */
export const BADGE_REFETCH_MS = 60_000;

export const unreadNoticeCountQuery = {
  queryKey: [...NOTICE_KEY, 'unread-count'] as const,
  queryFn: () => api.get('/api/v1/notices/unread-count', { silent: true }),
};

export const pendingApprovalCountQuery = {
  queryKey: [...APPROVAL_KEY, 'count'] as const,
  queryFn: () => api.get('/api/v1/approvals/count', { silent: true }),
};

const badgeOptions = { staleTime: 15_000, refetchInterval: BADGE_REFETCH_MS, refetchOnWindowFocus: true } as const;

/** Unread notices of the user; only fetched when `enabled` (the permission holds). */
export function useUnreadNoticeCount(enabled: boolean): number {
  const { data } = useQuery({ ...unreadNoticeCountQuery, ...badgeOptions, enabled });
  return enabled ? Number(data ?? 0) : 0;
}

/** Pending approvals of the enterprise; only fetched when `enabled`. */
export function usePendingApprovalCount(enabled: boolean): number {
  const { data } = useQuery({ ...pendingApprovalCountQuery, ...badgeOptions, enabled });
  return enabled ? Number(data ?? 0) : 0;
}
