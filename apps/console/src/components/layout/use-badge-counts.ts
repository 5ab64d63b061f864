/**
 * Unread-notice and pending-approval counts for the navbar badges (fetched after
 * sign-in, not on /selectNet). The gateway does not publish count endpoints yet
 * (organisation issue); until its OpenAPI document has them the counts stay 0.
 */
export function useBadgeCounts(): { notices: number; approvals: number } {
  return { notices: 0, approvals: 0 };
}
