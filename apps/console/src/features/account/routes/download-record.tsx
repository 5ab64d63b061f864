import { DownloadOutlined } from '@ant-design/icons';
import { Button, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListState } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { type TableColumn } from '@/components/paginated-table';
import { formatTime } from '@/lib/format';
import { toastError } from '@/lib/notify';
import { EXPORT_STATUSES, exportQuery, exportStatusColor, useDownloadLink, useExportRecords, type ExportRecord } from '../api/exports';

/** /downloadRecord: the enterprise's exports with status and, once ready, a download link. */
export default function DownloadRecordPage() {
  const { t } = useTranslation();
  const { filters, page, size, search, changePage } = useListState();
  const [fetching, setFetching] = useState('');
  const query = useMemo(() => exportQuery(filters, page, size), [filters, page, size]);
  const { data, isFetching, error, refetch } = useExportRecords(query);
  const downloadLink = useDownloadLink();

  const fields = useMemo<FilterField[]>(
    () => [{ prop: 'status', label: t('exports.status'), type: 'select', width: 140, options: EXPORT_STATUSES.map((s) => ({ value: s, label: t(`exports.statuses.${s}`) })) }],
    [t],
  );

  const download = async (row: ExportRecord) => {
    setFetching(row.id);
    try {
      const url = await downloadLink(row.id);
      if (!url) return toastError(t('exports.noLink'));
      const a = document.createElement('a');
      a.href = url;
      a.rel = 'noopener';
      a.target = '_blank';
      a.click();
    } catch {
      // The request client already showed why.
    } finally {
      setFetching('');
    }
  };

  const columns: TableColumn<ExportRecord>[] = [
    { prop: 'name', label: t('exports.name'), minWidth: 200, showOverflowTooltip: true },
    { prop: 'module', label: t('exports.module'), width: 140, formatter: (row) => t(`route.${row.module}`, { defaultValue: row.module }) },
    {
      prop: 'status',
      label: t('exports.status'),
      width: 110,
      render: (row) => {
        const tag = <Tag color={exportStatusColor(row.status)}>{t(`exports.statuses.${row.status}`, { defaultValue: String(row.status) })}</Tag>;
        return row.failureReason ? <Tooltip title={row.failureReason}>{tag}</Tooltip> : tag;
      },
    },
    { prop: 'rowCount', label: t('exports.rowCount'), width: 100, align: 'right' },
    { prop: 'requestedByName', label: t('exports.requestedBy'), width: 120 },
    { prop: 'requestTime', label: t('exports.requestTime'), width: 180, formatter: (row) => formatTime(row.requestTime) },
    { prop: 'finishTime', label: t('exports.finishTime'), width: 180, formatter: (row) => formatTime(row.finishTime) },
    { prop: 'expireTime', label: t('exports.expireTime'), width: 180, formatter: (row) => formatTime(row.expireTime) },
    {
      prop: 'actions',
      label: t('common.actions'),
      width: 100,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" icon={<DownloadOutlined />} disabled={!row.downloadable} loading={fetching === row.id} onClick={() => void download(row)} data-testid="export-download">
          {t('exports.download')}
        </Button>
      ),
    },
  ];

  return (
    <ListPage<ExportRecord>
      testId="download-record"
      fields={fields}
      onSearch={search}
      banner={<LoadErrorBanner error={error} onRetry={() => void refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, data: data?.list ?? [], total: data?.total ?? 0, loading: isFetching, page, size, scrollX: 1400, onPageChange: changePage }}
    />
  );
}
