import { Button, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { exportFilters } from '../api/keys';
import { defaultRange, listSessions, pollWhileCharging, SESSIONS_KEY, sessionQuery, type ChargingSession, type SessionPage, type SessionQuery } from '../api/sessions';
import { codeLabel, codeOptions, durationText, kwh, SESSION_STATUS_COLORS, SESSION_STATUSES, socText, START_METHODS } from '../components/labels';
import { SessionDetailDrawer } from '../components/session-detail-drawer';
import { sessionSummary } from '../components/session-summary';

/** The parameter that opens one session's detail over the list (links from plate scans). */
const SESSION_PARAM = 'sessionId';

/**
 * 消费记录 (consumeRecord): charging sessions by card or plate, station and
 * connector, start/end, kWh, electricity and service fee by time-of-use tariff,
 * SOC, with the totals over every matching session as the summary row.
 * Sessions in progress refresh every 10 s.
 */
export default function ConsumeRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [params, setParams] = useSearchParams();
  const viewing = params.get(SESSION_PARAM) ?? undefined;
  const view = (id: string | undefined) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (id) next.set(SESSION_PARAM, id);
      else next.delete(SESSION_PARAM);
      return next;
    });

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('energy:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'cardNo', label: t('energy:fields.cardNo'), type: 'batchInput', width: 220 },
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'sessionNo', label: t('energy:sessions.sessionNo'), type: 'input', width: 200, maxlength: 64 },
      { prop: 'status', label: t('energy:fields.status'), type: 'select', width: 180, multiple: true, options: codeOptions(t, 'sessionStatus', SESSION_STATUSES) },
      { prop: 'startMethod', label: t('energy:sessions.startMethod'), type: 'select', width: 180, multiple: true, options: codeOptions(t, 'startMethod', START_METHODS) },
      { prop: 'startTime', label: t('energy:sessions.startTime'), type: 'daterange', keys: { start: 'startTimeStart', end: 'startTimeEnd' }, initValue: defaultRange() },
      { prop: 'statementMonth', label: t('energy:sessions.statementMonth'), type: 'month', width: 160 },
    ],
    [t, orgs],
  );
  const list = useListPage<ChargingSession, SessionQuery, SessionPage>({
    fields,
    queryKey: SESSIONS_KEY,
    toQuery: sessionQuery,
    fetch: listSessions,
    refetchInterval: (answer) => pollWhileCharging(answer?.list),
  });

  const columns: ListColumn<ChargingSession>[] = [
    {
      prop: 'sessionNo',
      label: t('energy:sessions.sessionNo'),
      width: 200,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => view(row.id)} data-testid="session-open">
          {row.sessionNo || row.id}
        </Button>
      ),
    },
    { prop: 'plateNumber', label: t('energy:fields.plateNumber'), width: 110 },
    // The session's amount and energy before its details: seen at 1440 px without scrolling.
    { prop: 'totalFen', label: t('energy:sessions.totalFee'), width: 120, align: 'right', formatter: (row) => yuan(row.totalFen) },
    { prop: 'energyWh', label: t('energy:sessions.energy'), width: 110, align: 'right', formatter: (row) => kwh(row.energyWh) },
    { prop: 'cardNo', label: t('energy:fields.cardNo'), width: 160 },
    { prop: 'orgName', label: t('energy:fields.org'), width: 140, showOverflowTooltip: true },
    { prop: 'stationName', label: t('energy:fields.station'), width: 190, showOverflowTooltip: true },
    { key: 'connector', label: t('energy:sessions.connector'), width: 150, render: (row) => [row.pileNo, row.connectorNo, codeLabel(t, 'connectorType', row.connectorType)].filter(Boolean).join(' / ') || BLANK },
    { prop: 'startMethod', label: t('energy:sessions.startMethod'), width: 100, formatter: (row) => codeLabel(t, 'startMethod', row.startMethod) },
    { prop: 'startTime', label: t('energy:sessions.startTime'), width: 170, formatter: (row) => formatTime(row.startTime) },
    { prop: 'endTime', label: t('energy:sessions.endTime'), width: 170, formatter: (row) => formatTime(row.endTime) },
    { prop: 'durationSeconds', label: t('energy:sessions.duration'), width: 120, formatter: (row) => durationText(row.durationSeconds, t) },
    { prop: 'electricityFen', label: t('energy:sessions.electricity'), width: 110, align: 'right', formatter: (row) => yuan(row.electricityFen) },
    { prop: 'serviceFeeFen', label: t('energy:sessions.serviceFee'), width: 110, align: 'right', formatter: (row) => yuan(row.serviceFeeFen) },
    { prop: 'discountFen', label: t('energy:sessions.discount'), width: 100, align: 'right', formatter: (row) => yuan(row.discountFen) },
    { key: 'soc', label: t('energy:sessions.soc'), width: 130, render: (row) => socText(row.startSocPercent, row.endSocPercent) || BLANK },
    {
      prop: 'status',
      label: t('energy:fields.status'),
      width: 90,
      fixed: 'right',
      render: (row) => (row.status ? <Tag color={SESSION_STATUS_COLORS[row.status]}>{codeLabel(t, 'sessionStatus', row.status)}</Tag> : BLANK),
    },
  ];

  return (
    <ListPage<ChargingSession>
      testId="session-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/sessions/export', { ...options, params: { query: exportFilters(list.query) } })} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 2400, summary: sessionSummary(list.data?.totals, t), ...list.tableProps }}
    >
      <SessionDetailDrawer sessionId={viewing} onClose={() => view(undefined)} />
    </ListPage>
  );
}
