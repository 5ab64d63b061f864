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

/** Viewing approvals: the icon, the count call and the /approve route all need it. */
export const APPROVAL_VIEW_PERMISSION = 'as:approval:pageInfo';

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

/** How many unread notices the workbench card lists. */
export const WORKBENCH_NOTICE_COUNT = 5;

/** The newest unread notices (the workbench card); refreshed with the bell. */
export const unreadNoticesQuery = {
  queryKey: [...NOTICE_KEY, 'list', { read: false, page: 1, size: WORKBENCH_NOTICE_COUNT }] as const,
  queryFn: () => api.get('/api/v1/notices', { params: { query: { read: false, page: 1, size: WORKBENCH_NOTICE_COUNT } }, silent: true }),
};

const badgeOptions = { staleTime: 15_000, refetchInterval: BADGE_REFETCH_MS, refetchOnWindowFocus: true } as const;

/** Unread notices of the user; only fetched when `enabled` (the permission holds). */
export function useUnreadNoticeCount(enabled: boolean): number {
  const { data } = useQuery({ ...unreadNoticeCountQuery, ...badgeOptions, enabled });
  return enabled ? Number(data ?? 0) : 0;
}

/** The newest unread notices and how many there are, from the bell's sources; only fetched when `enabled`. */
export function useUnreadNotices(enabled: boolean) {
  const list = useQuery({ ...unreadNoticesQuery, ...badgeOptions, enabled });
  const count = useUnreadNoticeCount(enabled);
  return { notices: enabled ? (list.data?.list ?? []) : [], count, isLoading: enabled && list.isLoading };
}

/** Pending approvals of the enterprise; only fetched when `enabled`. */
export function usePendingApprovalCount(enabled: boolean): number {
  const { data } = useQuery({ ...pendingApprovalCountQuery, ...badgeOptions, enabled });
  return enabled ? Number(data ?? 0) : 0;
}
