import { Button, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { listServiceRecords, SERVICE_RECORDS_KEY, serviceRecordQuery, type ServiceRecord, type ServiceRecordQuery } from '../api/service-records';
import { durationText, SERVICE_CATEGORIES, SERVICE_CHANNELS, SERVICE_STATUSES } from '../components/labels';
import { ServiceRecordDialog } from '../components/service-record-dialog';

const STATUS_COLORS: Record<string, string> = { OPEN: 'error', IN_PROGRESS: 'processing', RESOLVED: 'success', CLOSED: 'default' };

/**
 * 客服记录 (customerServiceRecord, as:risk:service): the operator's contacts about
 * a vehicle or an alarm, newest first; recorded and edited in a dialog (a
 * closed record is final).
 */
export default function CustomerServiceRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [editing, setEditing] = useState<{ record?: ServiceRecord } | null>(null);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'startTime', label: t('risk:service.startTime'), type: 'daterange', keys: { start: 'startTimeStart', end: 'startTimeEnd' } },
      { prop: 'statuses', label: t('risk:service.status'), type: 'select', multiple: true, width: 200, options: SERVICE_STATUSES.map((s) => ({ value: s, label: t(`risk:service.statuses.${s}`) })) },
      { prop: 'categories', label: t('risk:service.category'), type: 'select', multiple: true, width: 200, options: SERVICE_CATEGORIES.map((c) => ({ value: c, label: t(`risk:service.categories.${c}`) })) },
      { prop: 'channels', label: t('risk:service.channel'), type: 'select', multiple: true, width: 180, options: SERVICE_CHANNELS.map((c) => ({ value: c, label: t(`risk:service.channels.${c}`) })) },
      { prop: 'ticketNo', label: t('risk:service.ticketNo'), type: 'input', width: 180 },
      { prop: 'orgIds', label: t('risk:service.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('risk:service.plateNumber'), type: 'batchInput', width: 220 },
    ],
    [t, orgs],
  );
  const list = useListPage<ServiceRecord, ServiceRecordQuery>({ fields, queryKey: SERVICE_RECORDS_KEY, toQuery: serviceRecordQuery, fetch: listServiceRecords });

  const columns: ListColumn<ServiceRecord>[] = [
    { prop: 'ticketNo', label: t('risk:service.ticketNo'), width: 160, fixed: 'left' },
    { prop: 'plateNumber', label: t('risk:service.plateNumber'), width: 110 },
    { prop: 'startTime', label: t('risk:service.startTime'), width: 170, formatter: (row) => formatTime(row.startTime) },
    { prop: 'callerName', label: t('risk:service.callerName'), width: 100 },
    { prop: 'callerMaskedPhone', label: t('risk:service.callerPhone'), width: 130 },
    { prop: 'channel', label: t('risk:service.channel'), width: 100, formatter: (row) => codeLabel(t, 'risk:service.channels', row.channel) },
    { prop: 'category', label: t('risk:service.category'), width: 100, formatter: (row) => codeLabel(t, 'risk:service.categories', row.category) },
    { prop: 'summary', label: t('risk:service.summary'), minWidth: 200, showOverflowTooltip: true },
    { prop: 'resolution', label: t('risk:service.resolution'), minWidth: 160, showOverflowTooltip: true },
    { prop: 'durationSeconds', label: t('risk:service.durationSeconds'), width: 110, formatter: (row) => (row.durationSeconds ? durationText(t, row.durationSeconds) : '') },
    { prop: 'followUpTime', label: t('risk:service.followUpTime'), width: 120, formatter: (row) => formatTime(row.followUpTime, '{y}-{m}-{d}') },
    { prop: 'agentName', label: t('risk:service.agent'), width: 100 },
    {
      prop: 'status',
      label: t('risk:service.status'),
      width: 90,
      render: (row) => (row.status ? <Tag color={STATUS_COLORS[row.status]}>{codeLabel(t, 'risk:service.statuses', row.status)}</Tag> : '--'),
    },
    {
      key: 'actions',
      label: t('risk:common.actions'),
      width: 80,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" disabled={row.status === 'CLOSED'} onClick={() => setEditing({ record: row })} data-testid="service-edit">
          {t('risk:common.edit')}
        </Button>
      ),
    },
  ];

  return (
    <ListPage<ServiceRecord>
      testId="service-record-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" onClick={() => setEditing({})} data-testid="service-add">
          {t('risk:service.add')}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1800, ...list.tableProps }}
    >
      <ServiceRecordDialog open={!!editing} record={editing?.record} onClose={() => setEditing(null)} />
    </ListPage>
  );
}
