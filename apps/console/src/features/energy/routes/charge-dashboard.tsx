import { DatePicker, Space, Table, TreeSelect } from 'antd';
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EChart } from '@/components/chart/echart';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, DATE_FORMAT, serviceToday } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import '../energy.css';
import { useChargingDashboard, type ChargingDashboard } from '../api/dashboard';
import { trendChartOption } from '../components/dashboard-chart';
import { kwh, pricePerKwh } from '../components/labels';

type Rank = ChargingDashboard['topStations'][number];

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

/**
 * 充电看板 (dashboard): balances, the period's spend, kWh and sessions, kWh and
 * spend by day (ECharts, loaded with the first chart), the top stations and
 * organisations. The period is this month so far unless chosen (at most 92 days).
 */
export default function ChargeDashboardPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  // This month so far on the service's calendar: a browser west of Beijing is still on yesterday.
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => {
    const today = dayjs(serviceToday());
    return [today.startOf('month'), today];
  });
  const [orgIds, setOrgIds] = useState<string[]>([]);
  const query = useMemo(() => ({ orgId: orgIds, timeRangeStart: range[0].format(DATE_FORMAT), timeRangeEnd: range[1].format(DATE_FORMAT) }), [orgIds, range]);
  const dashboard = useChargingDashboard(query);
  const d = dashboard.data;
  const option = useMemo(() => trendChartOption(d?.trend ?? [], t), [d?.trend, t]);

  const rankColumns = [
    { key: 'rank', title: t('energy:dashboard.rank'), width: 60, render: (_: unknown, __: Rank, i: number) => i + 1 },
    { key: 'name', title: t('energy:dashboard.name'), dataIndex: 'name', ellipsis: true },
    { key: 'energy', title: t('energy:dashboard.trendEnergy'), dataIndex: 'energyWh', align: 'right' as const, render: (wh: number) => kwh(wh) },
    { key: 'spend', title: t('energy:dashboard.trendSpend'), dataIndex: 'totalFen', align: 'right' as const, render: (fen: number) => yuan(fen) },
  ];

  return (
    <div className="fd-charge-page" data-testid="charge-dashboard">
      <div className="fd-charge-panel fd-charge-panel__head">
        <Space wrap>
          <span>{t('energy:dashboard.period')}</span>
          <DatePicker.RangePicker
            value={range}
            allowClear={false}
            disabledDate={(day) => day.isAfter(dayjs(), 'day')}
            onChange={(value) => value?.[0] && value[1] && setRange([value[0], value[1]])}
          />
          <TreeSelect
            treeData={orgs}
            value={orgIds}
            onChange={setOrgIds}
            multiple
            allowClear
            treeDefaultExpandAll
            placeholder={t('energy:fields.org')}
            style={{ minWidth: 240 }}
          />
        </Space>
      </div>
      <LoadErrorBanner error={dashboard.error} onRetry={() => void dashboard.refetch()} />
      <div className="fd-charge-stats">
        <Stat label={t('energy:dashboard.mainAvailable')} value={yuan(d?.mainAvailableFen)} testId="dashboard-main-available" />
        <Stat label={t('energy:dashboard.totalAvailable')} value={yuan(d?.totalAvailableFen)} />
        <Stat label={t('energy:dashboard.frozen')} value={yuan(d?.frozenFen)} />
        <Stat label={t('energy:dashboard.activeCards')} value={d?.activeCardCount ?? ''} />
        <Stat label={t('energy:dashboard.chargingNow')} value={d?.chargingNowCount ?? ''} />
      </div>
      <div className="fd-charge-stats">
        <Stat label={t('energy:dashboard.spend')} value={yuan(d?.totals.totalFen)} testId="dashboard-spend" />
        <Stat label={t('energy:dashboard.energy')} value={kwh(d?.totals.energyWh)} />
        <Stat label={t('energy:dashboard.sessions')} value={d?.totals.sessionCount ?? ''} />
        <Stat label={t('energy:dashboard.vehicles')} value={d?.vehicleCount ?? ''} />
        <Stat label={t('energy:dashboard.avgPrice')} value={pricePerKwh(d?.avgPriceFenPerMwh)} />
        <Stat label={t('energy:dashboard.saved')} value={yuan(d?.savedFen)} />
      </div>
      <div className="fd-charge-grid">
        <div className="fd-charge-panel">
          <div className="fd-charge-panel__title">{t('energy:dashboard.trendTitle')}</div>
          <EChart option={option} className="fd-charge-chart" data-testid="dashboard-trend" />
        </div>
        <Space orientation="vertical" style={{ width: '100%' }}>
          <div className="fd-charge-panel">
            <div className="fd-charge-panel__title">{t('energy:dashboard.topStations')}</div>
            <Table<Rank> rowKey="id" size="small" pagination={false} columns={rankColumns} dataSource={d?.topStations ?? []} loading={dashboard.isLoading} />
          </div>
          <div className="fd-charge-panel">
            <div className="fd-charge-panel__title">{t('energy:dashboard.topOrgs')}</div>
            <Table<Rank> rowKey="id" size="small" pagination={false} columns={rankColumns} dataSource={d?.topOrgs ?? []} loading={dashboard.isLoading} />
          </div>
        </Space>
      </div>
    </div>
  );
}
