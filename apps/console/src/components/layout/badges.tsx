import { AuditOutlined, BellOutlined } from '@ant-design/icons';
import { Badge, Button, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useHasPermission } from '@/lib/auth';
import { APPROVAL_VIEW_PERMISSION } from '@/lib/counts';

/** Spec §2: counts above 99 read '99+'. */
export const BADGE_OVERFLOW = 99;

export function CountBadge({ count, icon, label, onClick, testId }: { count: number; icon: React.ReactNode; label: string; onClick: () => void; testId: string }) {
  return (
    <Tooltip title={label}>
      <Badge count={count} overflowCount={BADGE_OVERFLOW} size="small" offset={[-4, 4]}>
        <Button type="text" className="fd-nav__icon" icon={icon} aria-label={label} onClick={onClick} data-testid={testId} />
      </Badge>
    </Tooltip>
  );
}

/**
 * Notice and approval entries, each behind the permission its count and its page
 * need: the approval icon, `GET /approvals/count` and /approve all need
 * `as:approval:pageInfo` (viewing); `oss:as:approval` only adds deciding.
 */
export function NoticeApprovalBadges({ notices, approvals }: { notices: number; approvals: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const canSeeNotices = useHasPermission('as:message:pageInfo');
  const canViewApprovals = useHasPermission(APPROVAL_VIEW_PERMISSION);
  return (
    <>
      {canViewApprovals && <CountBadge count={approvals} icon={<AuditOutlined />} label={t('route.approve')} onClick={() => navigate('/approve')} testId="approval-badge" />}
      {canSeeNotices && <CountBadge count={notices} icon={<BellOutlined />} label={t('route.notice')} onClick={() => navigate('/notice')} testId="notice-badge" />}
    </>
  );
}
