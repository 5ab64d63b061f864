import { Button, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ExportButton } from '@/components/export-button';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { APPROVAL_KINDS, APPROVAL_LIST_KEY, APPROVAL_STATUSES, approvalQuery, approvalStatusColor, exportApprovals, listApprovals, type Approval, type ApprovalQuery } from '../api/approvals';

/** /approve (`getApprovalList`): the enterprise's approvals, filtered by status and kind. */
export default function ApprovalListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'status', label: t('approval.status'), type: 'select', width: 130, options: APPROVAL_STATUSES.map((s) => ({ value: s, label: t(`approval.statuses.${s}`) })) },
      { prop: 'kind', label: t('approval.kind'), type: 'select', width: 150, options: APPROVAL_KINDS.map((k) => ({ value: k, label: t(`approval.kinds.${k}`) })) },
    ],
    [t],
  );
  const list = useListPage<Approval, ApprovalQuery>({ fields, queryKey: APPROVAL_LIST_KEY, toQuery: approvalQuery, fetch: listApprovals });

  const open = (row: Approval) => navigate(`/approveDetails?id=${encodeURIComponent(row.id)}`);
  const columns: ListColumn<Approval>[] = [
    {
      prop: 'title',
      label: t('approval.title'),
      minWidth: 240,
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => open(row)} data-testid="approval-title">
          {row.title}
        </Button>
      ),
    },
    { prop: 'kind', label: t('approval.kind'), width: 130, formatter: (row) => t(`approval.kinds.${row.kind}`, { defaultValue: String(row.kind) }) },
    { prop: 'businessId', label: t('approval.businessId'), width: 150 },
    { prop: 'applicantName', label: t('approval.applicant'), width: 120 },
    { prop: 'applicantPhone', label: t('approval.applicantPhone'), width: 140 },
    { prop: 'plateNumber', label: t('approval.plateNumber'), width: 110 },
    {
      prop: 'status',
      label: t('approval.status'),
      width: 100,
      render: (row) => <Tag color={approvalStatusColor(row.status)}>{t(`approval.statuses.${row.status}`, { defaultValue: String(row.status) })}</Tag>,
    },
    { prop: 'applyTime', label: t('approval.applyTime'), width: 180, formatter: (row) => formatTime(row.applyTime) },
    { prop: 'decideTime', label: t('approval.decideTime'), width: 180, formatter: (row) => formatTime(row.decideTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 90,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" onClick={() => open(row)}>
          {t('common.view')}
        </Button>
      ),
    },
  ];

  return (
    <ListPage<Approval>
      testId="approval-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportApprovals(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1500, ...list.tableProps }}
    />
  );
}
