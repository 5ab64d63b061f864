import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import { CROSSINGS_KEY, crossingQuery, DIRECTIONS, listCrossings, useFenceOptions, type CrossingQuery, type GeofenceCrossing } from '../api/geofences';
import { FenceNav } from '../components/fence-nav';
import { durationText } from '../components/query';
import { codeLabel, codeOptions } from '../components/status';

/** 进出围栏记录 (crossRailPage): every entry and exit, with filters and export. */
export default function CrossRailPage() {
  const { t } = useTranslation();
  const fences = useFenceOptions();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'geofenceIds', label: t('monitoring:fence.fence'), type: 'select', width: 220, multiple: true, options: fences.data ?? [] },
      { prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'directions', label: t('monitoring:fence.direction'), type: 'select', width: 160, multiple: true, options: codeOptions(t, 'direction', DIRECTIONS) },
      { prop: 'time', label: t('monitoring:fence.time'), type: 'datetimerange', keys: { start: 'from', end: 'to' } },
    ],
    [t, fences.data],
  );
  const list = useListPage<GeofenceCrossing, CrossingQuery>({ fields, queryKey: CROSSINGS_KEY, toQuery: crossingQuery, fetch: listCrossings });
  const columns: ListColumn<GeofenceCrossing>[] = [
    { prop: 'geofenceName', label: t('monitoring:fence.fence'), width: 180, showOverflowTooltip: true },
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120 },
    { prop: 'direction', label: t('monitoring:fence.direction'), width: 90, formatter: (row) => codeLabel(t, 'direction', row.direction) },
    { prop: 'time', label: t('monitoring:fence.time'), width: 170, formatter: (row) => formatTime(row.time) },
    { key: 'position', label: t('monitoring:fence.position'), width: 200, render: (row) => `${row.lat.toFixed(6)}, ${row.lng.toFixed(6)}` },
    { prop: 'dwellSeconds', label: t('monitoring:fence.stayed'), width: 140, formatter: (row) => durationText(row.dwellSeconds, t) },
  ];
  const exportFilters = { ...list.query, page: undefined, size: undefined };
  return (
    <div className="fd-monitor-page">
      <FenceNav />
      <ListPage<GeofenceCrossing>
        testId="crossing-list"
        {...list.listProps}
        toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/geofence-crossings/export', { ...options, params: { query: exportFilters } })} />}
        banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
        table={{ rowKey: 'id', showIndex: true, columns, ...list.tableProps }}
      />
    </div>
  );
}
