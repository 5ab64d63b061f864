import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import { ALARM_KINDS, ALARMS_KEY, alarmQuery, listAlarms, useFenceOptions, type AlarmQuery, type GeofenceAlarm } from '../api/geofences';
import { FenceNav } from '../components/fence-nav';
import { codeLabel, codeOptions } from '../components/status';

const KIND_COLORS: Record<string, string> = { enter: 'blue', exit: 'orange', speeding: 'red', overstay: 'purple' };
const speed = (v: number | null | undefined) => (v === null || v === undefined ? BLANK : `${v.toFixed(1)} km/h`);

/** 运营监控 (operateMonitor): fence alarms (entered, left, over the fence's speed limit, stayed past its max stay). */
export default function OperateMonitorPage() {
  const { t } = useTranslation();
  const fences = useFenceOptions();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'geofenceIds', label: t('monitoring:fence.fence'), type: 'select', width: 220, multiple: true, options: fences.data ?? [] },
      { prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'kinds', label: t('monitoring:fence.alarmKind'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'alarmKind', ALARM_KINDS) },
      { prop: 'time', label: t('monitoring:fence.time'), type: 'datetimerange', keys: { start: 'from', end: 'to' } },
    ],
    [t, fences.data],
  );
  const list = useListPage<GeofenceAlarm, AlarmQuery>({ fields, queryKey: ALARMS_KEY, toQuery: alarmQuery, fetch: listAlarms });
  const columns: ListColumn<GeofenceAlarm>[] = [
    { prop: 'time', label: t('monitoring:fence.time'), width: 170, formatter: (row) => formatTime(row.time) },
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120 },
    { prop: 'geofenceName', label: t('monitoring:fence.fence'), width: 180, showOverflowTooltip: true },
    { prop: 'kind', label: t('monitoring:fence.alarmKind'), width: 110, render: (row) => <Tag color={KIND_COLORS[row.kind ?? ''] ?? 'default'}>{codeLabel(t, 'alarmKind', row.kind)}</Tag> },
    { prop: 'speedKmh', label: t('monitoring:live.speed'), width: 110, align: 'right', formatter: (row) => speed(row.speedKmh) },
    { prop: 'limitKmh', label: t('monitoring:fence.speedLimit'), width: 110, align: 'right', formatter: (row) => speed(row.limitKmh) },
    { prop: 'maxStayMinutes', label: t('monitoring:fence.maxStay'), width: 120, align: 'right', formatter: (row) => (row.maxStayMinutes ? `${row.maxStayMinutes} ${t('monitoring:fence.minutes')}` : BLANK) },
  ];
  return (
    <div className="fd-monitor-page">
      <FenceNav />
      <ListPage<GeofenceAlarm>
        testId="fence-alarm-list"
        {...list.listProps}
        banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
        table={{ rowKey: 'id', showIndex: true, columns, ...list.tableProps }}
      />
    </div>
  );
}
