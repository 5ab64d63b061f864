import { Empty, Spin } from 'antd';
import type { Dayjs } from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { EChart } from '@/components/chart/echart';
import { ExportButton } from '@/components/export-button';
import { FilterBar, type FilterField } from '@/components/filter-bar/filter-bar';
import { useListPage, type ListColumn, toTableColumns } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { PaginatedTable } from '@/components/paginated-table';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, DATE_FORMAT } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import '../energy.css';
import {
  BEHAVIOR_KEY,
  BEHAVIOR_MAX_DAYS,
  behaviorQuery,
  defaultBehaviorRange,
  listVehicleBehaviors,
  rangeProblem,
  useBehaviorAnalysis,
  vehicleBehaviorQuery,
  type BehaviorFigures,
  type OrgBehavior,
  type VehicleBehavior,
  type VehicleBehaviorQuery,
} from '../api/behavior';
import { bandChartOption, hourChartOption, socChartOption } from '../components/behavior-charts';
import { kwh, pricePerKwh } from '../components/labels';

type Translate = (key: string, options?: Record<string, unknown>) => string;

const percent = (value: number | null | undefined) => (value === null || value === undefined ? '' : `${value}%`);
const share = (value: number) => `${(value * 100).toFixed(1)}%`;
/** Cost per 100 km in yuan; blank without odometer distance. */
const per100km = (fen: number | null | undefined) => (fen === null || fen === undefined ? '' : yuan(fen));
const kwhPer100km = (wh: number | null | undefined) => (wh === null || wh === undefined ? '' : kwh(wh));

function Stat({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div className="fd-charge-stat">
      <div className="fd-charge-stat__label">{label}</div>
      <div className="fd-charge-stat__value" data-testid={testId}>
        {value === '' ? BLANK : value}
      </div>
    </div>
  );
}

/** The figure columns the organisation and vehicle tables share. */
function figureColumns<Row extends { figures: BehaviorFigures }>(t: Translate): ListColumn<Row>[] {
  const f = (render: (figures: BehaviorFigures) => string) => (row: Row) => render(row.figures) || BLANK;
  return [
    { key: 'sessions', label: t('energy:behavior.sessions'), width: 100, align: 'right', render: f((x) => String(x.sessionCount)) },
    { key: 'energy', label: t('energy:behavior.energyKwh'), width: 120, align: 'right', render: f((x) => kwh(x.energyWh)) },
    { key: 'spend', label: t('energy:behavior.spend'), width: 120, align: 'right', render: f((x) => yuan(x.totalFen)) },
    { key: 'price', label: t('energy:behavior.pricePerKwh'), width: 130, align: 'right', render: f((x) => pricePerKwh(x.avgPriceFenPerMwh)) },
    { key: 'offPeak', label: t('energy:behavior.offPeakShare'), width: 110, align: 'right', render: f((x) => (x.energyWh > 0 ? share(x.offPeakShare) : '')) },
    { key: 'soc', label: t('energy:behavior.avgStartSoc'), width: 120, align: 'right', render: f((x) => percent(x.avgStartSocPercent)) },
    { key: 'distance', label: t('energy:behavior.distanceKm'), width: 120, align: 'right', render: f((x) => (x.distanceM > 0 ? (x.distanceM / 1000).toFixed(1) : '')) },
    { key: 'per100km', label: t('energy:behavior.fenPer100km'), width: 140, align: 'right', render: f((x) => per100km(x.fenPer100km)) },
    { key: 'wh100km', label: t('energy:behavior.whPer100km'), width: 150, align: 'right', render: f((x) => kwhPer100km(x.whPer100km)) },
  ];
}

/**
 * 充电行为分析 (behaviorAnalyze, as:charge:behavior, for enterprises on its
 * white list): how the chosen vehicles charge over a start range of at most 92
 * days — sessions by hour of day, SOC at plug-in, the peak/flat/valley share,
 * cost per kWh and per 100 km (odometer from vehicle telemetry) — overall and
 * per organisation, then per vehicle with the export. Filters live in the URL.
 */
export default function BehaviorAnalyzePage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'plate', label: t('energy:fields.plateNumber'), type: 'batchInput', width: 220 },
      {
        prop: 'startTime',
        label: t('energy:behavior.startTime'),
        type: 'daterange',
        keys: { start: 'startTimeStart', end: 'startTimeEnd' },
        initValue: defaultBehaviorRange(),
        unReset: true,
        rules: [
          {
            validator: (_: unknown, value: [Dayjs | null, Dayjs | null] | null | undefined) => {
              const problem = rangeProblem(value?.[0]?.format(DATE_FORMAT), value?.[1]?.format(DATE_FORMAT));
              return problem ? Promise.reject(new Error(t(`energy:behavior.range.${problem}`, { days: BEHAVIOR_MAX_DAYS }))) : Promise.resolve();
            },
          },
        ],
      },
    ],
    [t, orgs],
  );
  const list = useListPage<VehicleBehavior, VehicleBehaviorQuery>({
    fields,
    queryKey: [...BEHAVIOR_KEY, 'vehicles'],
    toQuery: vehicleBehaviorQuery,
    fetch: listVehicleBehaviors,
  });
  const query = useMemo(() => behaviorQuery(list.filters), [list.filters]);
  const problem = rangeProblem(query.startTimeStart, query.startTimeEnd);
  const analysis = useBehaviorAnalysis(query);
  const a = problem ? undefined : analysis.data;
  const overall = a?.overall;
  const hourOption = useMemo(() => hourChartOption(a?.byHour ?? [], t), [a?.byHour, t]);
  const socOption = useMemo(() => socChartOption(a?.startSoc ?? [], a?.startSocUnknownCount ?? 0, t), [a?.startSoc, a?.startSocUnknownCount, t]);
  const bandOption = useMemo(() => (overall ? bandChartOption(overall, t) : undefined), [overall, t]);
  const empty = !!a && a.overall.sessionCount === 0;
  const loading = analysis.isFetching && !problem;

  const orgColumns = toTableColumns<OrgBehavior>([{ prop: 'orgName', label: t('energy:fields.org'), width: 180, fixed: 'left' }, ...figureColumns<OrgBehavior>(t)]);
  const vehicleColumns: ListColumn<VehicleBehavior>[] = [
    { prop: 'plateNumber', label: t('energy:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'orgName', label: t('energy:fields.org'), width: 160, showOverflowTooltip: true },
    ...figureColumns<VehicleBehavior>(t),
    { key: 'usualHour', label: t('energy:behavior.usualStartHour'), width: 130, render: (row) => (row.figures.sessionCount > 0 ? `${String(row.usualStartHour).padStart(2, '0')}:00` : BLANK) },
  ];

  const chart = (title: string, option: ReturnType<typeof hourChartOption> | undefined, testId: string) => (
    <div className="fd-charge-panel">
      <div className="fd-charge-panel__title">{title}</div>
      {empty || !option ? <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('energy:behavior.empty')} /> : <EChart option={option} className="fd-charge-chart" data-testid={testId} />}
    </div>
  );

  return (
    <div className="fd-list-page fd-charge-page" data-testid="behavior-analyze">
      <FilterBar fields={fields} onSearch={list.search} values={list.listProps.filterValues} searchOnInit={false} />
      {problem ? (
        <div className="fd-charge-panel">
          <Empty description={t(`energy:behavior.range.${problem}`, { days: BEHAVIOR_MAX_DAYS })} />
        </div>
      ) : (
        <>
          <LoadErrorBanner error={analysis.error} onRetry={() => void analysis.refetch()} />
          <Spin spinning={loading}>
            <div className="fd-charge-page">
              <div className="fd-charge-stats" data-testid="behavior-overall">
                <Stat label={t('energy:behavior.sessions')} value={overall?.sessionCount ?? ''} testId="behavior-sessions" />
                <Stat label={t('energy:behavior.energyKwh')} value={kwh(overall?.energyWh)} />
                <Stat label={t('energy:behavior.spend')} value={yuan(overall?.totalFen)} />
                <Stat label={t('energy:behavior.vehicles')} value={overall?.vehicleCount ?? ''} />
                <Stat label={t('energy:behavior.pricePerKwh')} value={pricePerKwh(overall?.avgPriceFenPerMwh)} />
                <Stat label={t('energy:behavior.fenPer100km')} value={per100km(overall?.fenPer100km)} testId="behavior-per-100km" />
                <Stat label={t('energy:behavior.whPer100km')} value={kwhPer100km(overall?.whPer100km)} />
                <Stat label={t('energy:behavior.offPeakShare')} value={overall && overall.energyWh > 0 ? share(overall.offPeakShare) : ''} />
                <Stat label={t('energy:behavior.avgStartSoc')} value={percent(overall?.avgStartSocPercent)} />
              </div>
              {overall && overall.sessionCount > 0 && overall.vehiclesWithDistance === 0 && <div className="fd-charge-hint">{t('energy:behavior.noDistance')}</div>}
              <div className="fd-charge-grid">
                {chart(t('energy:behavior.byHour'), a ? hourOption : undefined, 'behavior-hours')}
                {chart(t('energy:behavior.band.title'), bandOption, 'behavior-bands')}
              </div>
              {chart(t('energy:behavior.startSoc'), a ? socOption : undefined, 'behavior-soc')}
              <div className="fd-charge-panel">
                <div className="fd-charge-panel__title">{t('energy:behavior.byOrg')}</div>
                <PaginatedTable<OrgBehavior> rowKey="orgId" columns={orgColumns} data={a?.orgs ?? []} total={a?.orgs.length ?? 0} scrollX={1300} hidePagination />
              </div>
            </div>
          </Spin>
        </>
      )}
      <div className="fd-list-page__table">
        <div className="fd-list-page__toolbar">
          <span className="fd-charge-panel__title" style={{ marginRight: 'auto' }}>
            {t('energy:behavior.byVehicle')}
          </span>
          <ExportButton disabled={!!problem} startExport={(options: CallOptions) => api.post('/api/v1/charging/behavior/vehicles/export', { ...options, params: { query: behaviorQuery(list.filters) } })} />
        </div>
        <LoadErrorBanner error={problem ? null : list.error} onRetry={() => void list.refetch()} />
        <PaginatedTable<VehicleBehavior> rowKey="vehicleId" showIndex columns={toTableColumns(vehicleColumns)} scrollX={1600} {...list.tableProps} data={problem ? [] : list.tableProps.data} total={problem ? 0 : list.tableProps.total} />
      </div>
    </div>
  );
}
