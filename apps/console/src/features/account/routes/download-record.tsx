import { DownloadOutlined } from '@ant-design/icons';
import { App, Button, Progress, Space, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { toastError, toastSuccess } from '@/lib/notify';
import { canCancel, canRetry, EXPORT_STATUSES, exportProgress, exportQuery, exportStatusColor, EXPORT_LIST_KEY, listExportRecords, pollInterval, useDownloadLink, useExportAction, type ExportQuery, type ExportRecord } from '../api/exports';

/** /downloadRecord: the enterprise's exports with status and, once ready, a download link. */
export default function DownloadRecordPage() {
  const { t } = useTranslation();
  const [fetching, setFetching] = useState('');
  const downloadLink = useDownloadLink();
  const exportAction = useExportAction();
  const { modal } = App.useApp();

  const fields = useMemo<FilterField[]>(
    () => [{ prop: 'status', label: t('exports.status'), type: 'select', width: 140, options: EXPORT_STATUSES.map((s) => ({ value: s, label: t(`exports.statuses.${s}`) })) }],
    [t],
  );
  const list = useListPage<ExportRecord, ExportQuery>({ fields, queryKey: EXPORT_LIST_KEY, toQuery: exportQuery, fetch: listExportRecords, refetchInterval: (answer) => pollInterval(answer?.list) });

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

  const act = (row: ExportRecord, action: 'cancel' | 'retry') => {
    const run = () =>
      exportAction.mutateAsync({ id: row.id, action }).then(
        () => toastSuccess(t(action === 'cancel' ? 'exports.cancelled' : 'exports.retried')),
        () => undefined,
      );
    if (action === 'cancel') modal.confirm({ title: t('exports.cancel'), content: t('exports.cancelConfirm', { name: row.name }), onOk: run });
    else void run();
  };

  const columns: ListColumn<ExportRecord>[] = [
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
    {
      prop: 'rowsDone',
      label: t('exports.progress'),
      width: 200,
      render: (row) => {
        if (row.status !== 2) return row.status === 3 ? t('exports.rows', { count: row.rowCount }) : '--';
        const { done, total, percent } = exportProgress(row);
        return (
          <div data-testid="export-progress">
            <Progress percent={percent ?? 0} size="small" status="active" showInfo={percent !== undefined} />
            <span className="fd-export__rows">{total > 0 ? t('exports.rowsOf', { done, total }) : t('exports.counting')}</span>
          </div>
        );
      },
    },
    { prop: 'requestedByName', label: t('exports.requestedBy'), width: 120 },
    { prop: 'requestTime', label: t('exports.requestTime'), width: 180, formatter: (row) => formatTime(row.requestTime) },
    { prop: 'finishTime', label: t('exports.finishTime'), width: 180, formatter: (row) => formatTime(row.finishTime) },
    { prop: 'expireTime', label: t('exports.expireTime'), width: 180, formatter: (row) => formatTime(row.expireTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 200,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" icon={<DownloadOutlined />} disabled={!row.downloadable} loading={fetching === row.id} onClick={() => void download(row)} data-testid="export-download">
            {t('exports.download')}
          </Button>
          {canCancel(row) && (
            <Button type="link" size="small" danger onClick={() => act(row, 'cancel')} data-testid="export-cancel">
              {t('exports.cancel')}
            </Button>
          )}
          {canRetry(row) && (
            <Button type="link" size="small" onClick={() => act(row, 'retry')} data-testid="export-retry">
              {t('exports.retry')}
            </Button>
          )}
        </Space>
      ),
    },
  ];

  return (
    <ListPage<ExportRecord>
      testId="download-record"
      {...list.listProps}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1600, ...list.tableProps }}
    />
  );
}
