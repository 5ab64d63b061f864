import { useLocation } from 'react-router';
import { useHasPermission } from '@/lib/auth';
import { APPROVAL_VIEW_PERMISSION, usePendingApprovalCount, useUnreadNoticeCount } from '@/lib/counts';

/**
 * Unread-notice and pending-approval counts for the navbar badges, fetched after
 * sign-in (not on /selectNet) for users who may see them (console spec §4, §6), refreshed
 * every minute and whenever a notice is read or an approval decided.
 */
export function useBadgeCounts(): { notices: number; approvals: number } {
  const { pathname } = useLocation();
  const onShell = pathname !== '/selectNet';
  const mayReadNotices = useHasPermission('as:message:pageInfo');
  const mayListApprovals = useHasPermission(APPROVAL_VIEW_PERMISSION);
  const notices = useUnreadNoticeCount(onShell && mayReadNotices);
  const approvals = usePendingApprovalCount(onShell && mayListApprovals);
  return { notices, approvals };
}
