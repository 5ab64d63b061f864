import { Button, Space } from 'antd';
import type { Dayjs } from 'dayjs';
import { useMemo, useState, type Key } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { useUser } from '@/lib/auth';
import { DATE_FORMAT, formatTime } from '@/lib/format';
import { toastWarning } from '@/lib/notify';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { ALARMS_KEY, alarmQuery, defaultRange, listAlarms, MAX_RANGE_DAYS, rangeProblem, type AlarmQuery, type RiskAlarm } from '../api/alarms';
import { AlarmDrawer } from '../components/alarm-drawer';
import { durationCell, endText, handleTimeCell, isOpen, levelTag, speedCell, statusTag, typeText } from '../components/alarm-cells';
import { AssignDialog } from '../components/assign-dialog';
import { HandleDialog, type Closing } from '../components/handle-dialog';
import { ALARM_STATUSES, ALARM_TYPES, OPEN_STATUSES, RISK_LEVELS } from '../components/labels';
import { RulesDrawer } from '../components/rules-drawer';

/**
 * 风险报警记录 (riskAlarmRecord, as:alarm): alarms over an alarm-time range of at
 * most 92 days (the last 7 by default), opening on the ones still to work on;
 * a batch of open alarms is handled, dismissed as false or assigned at once,
 * and one alarm's drawer shows its evidence and activity log. The rules live
 * in a drawer of this page.
 */
export default function RiskAlarmRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const { data: me } = useUser();
  const [selected, setSelected] = useState<Key[]>([]);
  const [closing, setClosing] = useState<{ closing: Closing; ids: string[] } | null>(null);
  const [assigning, setAssigning] = useState<string[] | null>(null);
  // ?alarmId= (a level-3 alarm's notice links here) opens that alarm's drawer.
  const [params] = useSearchParams();
  const [viewing, setViewing] = useState<string | undefined>(() => params.get('alarmId') || undefined);
  const [rulesOpen, setRulesOpen] = useState(false);

  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'alarmTime',
        label: t('risk:fields.alarmTime'),
        type: 'daterange',
        keys: { start: 'alarmTimeStart', end: 'alarmTimeEnd' },
        initValue: defaultRange(),
        unReset: true,
        rules: [
          {
            validator: (_: unknown, value: [Dayjs | null, Dayjs | null] | null | undefined) => {
              const problem = rangeProblem(value?.[0]?.format(DATE_FORMAT), value?.[1]?.format(DATE_FORMAT));
              if (problem === 'required') return Promise.reject(new Error(t('risk:filter.rangeRequired')));
              if (problem === 'tooLong') return Promise.reject(new Error(t('risk:filter.rangeTooLong', { days: MAX_RANGE_DAYS })));
              return Promise.resolve();
            },
          },
        ],
      },
      { prop: 'levels', label: t('risk:fields.level'), type: 'select', multiple: true, width: 180, options: RISK_LEVELS.map((l) => ({ value: l, label: t(`risk:level.${l}`) })) },
      { prop: 'alarmTypes', label: t('risk:fields.alarmType'), type: 'select', multiple: true, width: 220, options: ALARM_TYPES.map((a) => ({ value: a, label: t(`risk:type.${a}`) })) },
      { prop: 'statuses', label: t('risk:fields.status'), type: 'select', multiple: true, width: 220, initValue: OPEN_STATUSES, options: ALARM_STATUSES.map((s) => ({ value: s, label: t(`risk:status.${s}`) })) },
      { prop: 'orgIds', label: t('risk:fields.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('risk:fields.plateNumber'), type: 'batchInput', width: 220 },
      // The caller's own id in the URL: 只看我的 is the alarms assigned to them.
      ...(me ? [{ prop: 'assigneeId', label: t('risk:fields.assignee'), type: 'checkbox' as const, options: [{ value: me.id, label: t('risk:filter.mine') }] }] : []),
    ],
    [t, orgs, me],
  );
  const list = useListPage<RiskAlarm, AlarmQuery>({ fields, queryKey: ALARMS_KEY, toQuery: alarmQuery, fetch: listAlarms });
  const rangeOk = !rangeProblem(list.query.alarmTimeStart, list.query.alarmTimeEnd);

  const selectedIds = selected.map(String);
  const batch = (run: (ids: string[]) => void) => () => {
    if (!selectedIds.length) return toastWarning(t('risk:action.selectFirst'));
    run(selectedIds);
  };
  const done = () => setSelected([]);

  const columns: ListColumn<RiskAlarm>[] = [
    { prop: 'plateNumber', label: t('risk:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'alarmType', label: t('risk:fields.alarmType'), width: 120, formatter: (row) => typeText(t, row) },
    { prop: 'level', label: t('risk:fields.level'), width: 80, render: (row) => levelTag(t, row) },
    // Where it stands, on the first screen: the list exists to work alarms to closure.
    { prop: 'status', label: t('risk:fields.status'), width: 90, render: (row) => statusTag(t, row) },
    { prop: 'alarmTime', label: t('risk:fields.startTime'), width: 170, formatter: (row) => formatTime(row.alarmTime) },
    { prop: 'endTime', label: t('risk:fields.endTime'), width: 170, formatter: (row) => endText(t, row) },
    { prop: 'durationSeconds', label: t('risk:fields.duration'), width: 110, formatter: (row) => durationCell(t, row) },
    { prop: 'speedKmh', label: t('risk:fields.peakSpeed'), width: 120, align: 'right', formatter: (row) => speedCell(row) },
    { prop: 'orgName', label: t('risk:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'assigneeName', label: t('risk:fields.assignee'), width: 100 },
    { prop: 'handleSeconds', label: t('risk:fields.handleTime'), width: 110, formatter: (row) => handleTimeCell(t, row) },
    {
      key: 'actions',
      label: t('risk:common.actions'),
      width: 80,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" onClick={() => setViewing(row.id)} data-testid="alarm-detail">
          {t('risk:common.detail')}
        </Button>
      ),
    },
  ];

  const exportFilters = { ...list.query, page: undefined, size: undefined };
  return (
    <ListPage<RiskAlarm>
      testId="risk-alarm-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" onClick={batch((ids) => setClosing({ closing: 'HANDLED', ids }))} data-testid="batch-handle">
            {t('risk:action.handle')}
          </Button>
          <Button onClick={batch((ids) => setClosing({ closing: 'FALSE_ALARM', ids }))} data-testid="batch-false">
            {t('risk:action.falseAlarm')}
          </Button>
          <Button onClick={batch(setAssigning)} data-testid="batch-assign">
            {t('risk:action.assign')}
          </Button>
          <Button onClick={() => setRulesOpen(true)} data-testid="open-rules">
            {t('risk:action.rules')}
          </Button>
          <ExportButton disabled={!rangeOk} startExport={(options: CallOptions) => api.post('/api/v1/risk/alarms/export', { ...options, params: { query: exportFilters } })} />
        </Space>
      }
      banner={<LoadErrorBanner error={rangeOk ? list.error : null} onRetry={() => void list.refetch()} />}
      table={{
        rowKey: 'id',
        showIndex: true,
        columns,
        scrollX: 1600,
        selectable: true,
        selectedKeys: selected,
        onSelectionChange: (keys) => setSelected(keys),
        rowSelectable: isOpen,
        ...list.tableProps,
      }}
    >
      <HandleDialog closing={closing?.closing} alarmIds={closing?.ids ?? []} onClose={() => setClosing(null)} onDone={done} />
      <AssignDialog open={!!assigning} alarmIds={assigning ?? []} onClose={() => setAssigning(null)} onDone={done} />
      <AlarmDrawer alarmId={viewing} onClose={() => setViewing(undefined)} onClosing={(c, ids) => setClosing({ closing: c, ids })} onAssign={setAssigning} />
      <RulesDrawer open={rulesOpen} onClose={() => setRulesOpen(false)} />
    </ListPage>
  );
}
