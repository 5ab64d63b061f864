import { ArrowLeftOutlined, CheckOutlined, CloseOutlined } from '@ant-design/icons';
import { Button, Descriptions, Space, Tag, Timeline } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { SensitiveReveal } from '@/components/sensitive-reveal';
import { ApiError, Code } from '@/lib/api-client';
import { useHasPermission } from '@/lib/auth';
import { DETAIL_BLANK, formatTime } from '@/lib/format';
import { SensitiveType } from '@/lib/mask';
import { SubjectKind } from '@/lib/sensitive';
import { APPROVAL_PENDING, KNOWN_DETAIL_FIELDS, approvalStatusColor, detailEntries, useApproval } from '../api/approvals';
import { DecisionDialog } from './decision-dialog';

const STEP_COLORS: Record<number, string> = { 1: 'blue', 2: 'green', 3: 'red', 4: 'gray' };

/** /approveDetails?id=: one approval, its business details and history; approve or reject (oss:as:approval). */
export default function ApprovalDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const { data: approval, isLoading, error, refetch } = useApproval(id);
  const canDecide = useHasPermission('oss:as:approval');
  const [deciding, setDeciding] = useState<'approve' | 'reject' | null>(null);

  const back = (
    <Button key="back" icon={<ArrowLeftOutlined />} onClick={() => navigate('/approve')}>
      {t('approval.backToList')}
    </Button>
  );
  if (!id) return <LoadErrorResult error={new ApiError(Code.NotFound, '')} onRetry={() => navigate('/approve')} extra={back} />;
  if (isLoading) return <PageLoading />;
  if (error || !approval) return <LoadErrorResult error={error} onRetry={() => void refetch()} extra={back} />;

  const pending = approval.status === APPROVAL_PENDING;
  const statusTag = (status: number) => <Tag color={approvalStatusColor(status)}>{t(`approval.statuses.${status}`, { defaultValue: String(status) })}</Tag>;
  const fieldLabel = (key: string) => (KNOWN_DETAIL_FIELDS.includes(key as 'vin') ? t(`approval.fields.${key}`) : key);

  return (
    <div className="fd-detail-page" data-testid="approval-detail">
      <ModuleCard
        title={approval.title}
        extra={
          <Space>
            {canDecide && pending && (
              <>
                <Button type="primary" icon={<CheckOutlined />} onClick={() => setDeciding('approve')} data-testid="approve-button">
                  {t('approval.approve')}
                </Button>
                <Button danger icon={<CloseOutlined />} onClick={() => setDeciding('reject')} data-testid="reject-button">
                  {t('approval.reject')}
                </Button>
              </>
            )}
            {back}
          </Space>
        }
      >
        <Descriptions
          size="small"
          column={{ xs: 1, md: 2, xl: 3 }}
          items={[
            { key: 'status', label: t('approval.status'), children: <span data-testid="approval-status">{statusTag(approval.status)}</span> },
            { key: 'kind', label: t('approval.kind'), children: t(`approval.kinds.${approval.kind}`, { defaultValue: String(approval.kind) }) },
            { key: 'businessId', label: t('approval.businessId'), children: approval.businessId || DETAIL_BLANK },
            { key: 'applicant', label: t('approval.applicant'), children: approval.applicantName || DETAIL_BLANK },
            { key: 'phone', label: t('approval.applicantPhone'), children: (
                <SensitiveReveal
                  masked={approval.applicantPhone}
                  sensitiveType={SensitiveType.Phone}
                  subjectKind={SubjectKind.ApprovalApplicant}
                  subjectId={approval.id}
                  sourceModule="approval"
                  blank={DETAIL_BLANK}
                />
              ),
            },
            { key: 'plate', label: t('approval.plateNumber'), children: approval.plateNumber || DETAIL_BLANK },
            { key: 'applyTime', label: t('approval.applyTime'), children: formatTime(approval.applyTime) || DETAIL_BLANK },
            { key: 'decideTime', label: t('approval.decideTime'), children: formatTime(approval.decideTime) || DETAIL_BLANK },
          ]}
        />
      </ModuleCard>
      <ModuleCard title={t('approval.details')}>
        {detailEntries(approval.detail).length ? (
          <Descriptions size="small" column={{ xs: 1, md: 2 }} items={detailEntries(approval.detail).map((e) => ({ key: e.key, label: fieldLabel(e.key), children: e.value }))} />
        ) : (
          <span className="fd-muted">{t('common.noData')}</span>
        )}
      </ModuleCard>
      <ModuleCard title={t('approval.history')}>
        {approval.history.length ? (
          <Timeline
            data-testid="approval-history"
            items={approval.history.map((step, i) => ({
              key: i,
              color: STEP_COLORS[step.status] ?? 'gray',
              title: formatTime(step.operateTime),
              content: (
                <div className="fd-step">
                  <div>
                    {statusTag(step.status)} <strong>{step.operatorName || DETAIL_BLANK}</strong>
                  </div>
                  {step.comment && <div className="fd-step__comment">{step.comment}</div>}
                </div>
              ),
            }))}
          />
        ) : (
          <span className="fd-muted">{t('common.noData')}</span>
        )}
      </ModuleCard>
      {deciding && <DecisionDialog approvalId={approval.id} approve={deciding === 'approve'} open onClose={() => setDeciding(null)} />}
    </div>
  );
}
