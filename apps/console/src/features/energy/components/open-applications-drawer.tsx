import { Drawer, Select, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import { LoadErrorBanner } from '@/components/load-error';
import { PaginatedTable, type TableColumn } from '@/components/paginated-table';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE } from '@/config/constants';
import type { CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { exportOpenApplications, useOpenApplications, type OpenApplication, type OpenApplicationQuery } from '../api/opening';
import { APPLICATION_STATUSES, APPLICATION_STATUS_COLORS, codeLabel, codeOptions, type OpenApplicationStatus } from './labels';

/**
 * 申请记录 of /chargeIntroduce: the enterprise's applications to open charging,
 * newest first, with how each was handled, filtered by status and exported
 * with that filter (the file follows in 导出记录).
 */
export function OpenApplicationsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [statuses, setStatuses] = useState<OpenApplicationStatus[]>([]);
  const [page, setPage] = useState(FIRST_PAGE);
  const [size, setSize] = useState(DEFAULT_PAGE_SIZE);
  const query: OpenApplicationQuery = { page, size, status: statuses.length ? statuses : undefined };
  const list = useOpenApplications(query, open);

  const columns: TableColumn<OpenApplication>[] = [
    { prop: 'applyTime', label: t('energy:intro.history.applyTime'), width: 170, formatter: (row) => formatTime(row.applyTime) },
    { prop: 'applicantName', label: t('energy:intro.history.applicant'), width: 120, showOverflowTooltip: true },
    {
      prop: 'status',
      label: t('energy:intro.history.status'),
      width: 100,
      render: (row) => (row.status ? <Tag color={APPLICATION_STATUS_COLORS[row.status]}>{codeLabel(t, 'applicationStatus', row.status)}</Tag> : BLANK),
    },
    { prop: 'decideTime', label: t('energy:intro.history.handleTime'), width: 170, formatter: (row) => formatTime(row.decideTime || row.contactTime) },
    { prop: 'handlerName', label: t('energy:intro.history.handler'), width: 120 },
    { prop: 'remark', label: t('energy:intro.history.remark'), minWidth: 160, showOverflowTooltip: true },
    // A decision carries either a rejection's reason or an approval's remark.
    { prop: 'opinion', label: t('energy:intro.history.opinion'), minWidth: 160, showOverflowTooltip: true, formatter: (row) => row.rejectReason || row.approveRemark },
  ];

  return (
    <Drawer open={open} size={1000} title={t('energy:intro.history.title')} onClose={onClose} data-testid="open-applications-drawer">
      <Space style={{ marginBottom: 12 }} wrap>
        <Select<OpenApplicationStatus[]>
          mode="multiple"
          allowClear
          style={{ minWidth: 220 }}
          placeholder={t('energy:intro.history.status')}
          value={statuses}
          options={codeOptions(t, 'applicationStatus', APPLICATION_STATUSES)}
          onChange={(value) => {
            setStatuses(value);
            setPage(FIRST_PAGE);
          }}
          data-testid="open-applications-status"
        />
        <ExportButton startExport={(options: CallOptions) => exportOpenApplications(query, options)} />
      </Space>
      <LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />
      <PaginatedTable<OpenApplication>
        rowKey="id"
        showIndex
        columns={columns}
        data={list.data?.list ?? []}
        total={list.data?.total ?? 0}
        page={page}
        size={size}
        loading={list.isFetching}
        onPageChange={(nextPage, nextSize) => {
          setPage(nextPage);
          setSize(nextSize);
        }}
      />
    </Drawer>
  );
}
