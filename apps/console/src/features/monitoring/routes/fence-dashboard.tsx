import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, DatePicker, Empty, Space, Statistic, TreeSelect } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { EChart } from '@/components/chart/echart';
import { LoadErrorBanner } from '@/components/load-error';
import '../messages';
import '../monitoring.css';
import { useDashboard, type GeofenceDashboard } from '../api/geofences';
import { useOrgTreeOptions } from '@/lib/org-options';
import { FenceNav } from '../components/fence-nav';
import { PATHS, pathWith } from '../paths';

/** Fences with the most entries shown in the dwell chart. */
const DWELL_TOP = 15;
const DEFAULT_DAYS = 7;

/** Entries and exits per day, and dwell per fence (the busiest first), as chart options. */
export function dashboardCharts(data: GeofenceDashboard, t: (key: string) => string) {
  const days = {
    grid: { left: 40, right: 16, top: 36, bottom: 28 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    xAxis: { type: 'category', data: data.days.map((d) => d.day) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      { name: t('monitoring:dashboard.entries'), type: 'bar', data: data.days.map((d) => d.entries), itemStyle: { color: '#1764ff' } },
      { name: t('monitoring:dashboard.exits'), type: 'bar', data: data.days.map((d) => d.exits), itemStyle: { color: '#fa8c16' } },
    ],
  };
  const busiest = [...data.dwell].sort((a, b) => b.entries - a.entries).slice(0, DWELL_TOP).reverse();
  const minutes = (s: number) => Math.round(s / 6) / 10;
  const dwell = {
    grid: { left: 120, right: 24, top: 36, bottom: 28 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    xAxis: { type: 'value', name: t('monitoring:dashboard.minutes') },
    yAxis: { type: 'category', data: busiest.map((d) => d.name) },
    series: [
      { name: t('monitoring:dashboard.avgDwell'), type: 'bar', data: busiest.map((d) => minutes(d.avgDwellS)), itemStyle: { color: '#13c2c2' } },
      { name: t('monitoring:dashboard.maxDwell'), type: 'bar', data: busiest.map((d) => minutes(d.maxDwellS)), itemStyle: { color: '#722ed1' } },
    ],
  };
  return { days, dwell, fenceIds: busiest.map((d) => d.geofenceId) };
}

/**
 * 电子围栏 (fenceDashboard): fence counts, entries and exits per day, and dwell
 * per fence; the organisation filter (kept in the URL as `orgIds`) narrows it
 * to those organisations' fences.
 */
export default function FenceDashboardPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs().subtract(DEFAULT_DAYS - 1, 'day').startOf('day'), dayjs().endOf('day')]);
  const [params, setParams] = useSearchParams();
  const orgIds = params.getAll('orgIds');
  const dashboard = useDashboard(range[0].startOf('day').format(), range[1].endOf('day').format(), orgIds);
  const orgs = useOrgTreeOptions();
  const charts = useMemo(() => (dashboard.data ? dashboardCharts(dashboard.data, t) : undefined), [dashboard.data, t]);
  const d = dashboard.data;
  return (
    <div className="fd-monitor-page" data-testid="fence-dashboard">
      <div className="fd-monitor-toolbar">
        <FenceNav />
        <Space>
          <TreeSelect
            style={{ width: 240 }}
            multiple
            allowClear
            treeData={orgs}
            value={orgIds}
            onChange={(ids: string[]) =>
              setParams(
                (p) => {
                  const next = new URLSearchParams(p);
                  next.delete('orgIds');
                  ids.forEach((id) => next.append('orgIds', id));
                  return next;
                },
                { replace: true },
              )
            }
            showSearch={{ treeNodeFilterProp: 'title' }}
            placeholder={t('monitoring:live.orgPlaceholder')}
            maxTagCount="responsive"
            data-testid="dashboard-orgs"
          />
          <DatePicker.RangePicker value={range} allowClear={false} onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])} disabledDate={(day) => day.isAfter(dayjs(), 'day')} />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(PATHS.addFence)}>
            {t('route.addFence')}
          </Button>
        </Space>
      </div>
      <LoadErrorBanner error={dashboard.error} onRetry={() => void dashboard.refetch()} />
      <div className="fd-monitor-stats">
        <Card loading={dashboard.isLoading}>
          <Statistic title={t('monitoring:dashboard.fences')} value={d?.fenceCount ?? 0} />
        </Card>
        <Card loading={dashboard.isLoading}>
          <Statistic title={t('monitoring:dashboard.enabled')} value={d?.enabledCount ?? 0} />
        </Card>
        <Card loading={dashboard.isLoading}>
          <Statistic title={t('monitoring:dashboard.inside')} value={d?.vehiclesInside ?? 0} />
        </Card>
        <Card loading={dashboard.isLoading}>
          <Statistic title={t('monitoring:dashboard.crossings')} value={d ? d.days.reduce((n, x) => n + x.entries + x.exits, 0) : 0} />
        </Card>
      </div>
      <Card title={t('monitoring:dashboard.perDay')}>
        {charts && d?.days.length ? <EChart option={charts.days} className="fd-monitor-chart" data-testid="dashboard-days" /> : <Empty />}
      </Card>
      <Card title={t('monitoring:dashboard.dwell')}>
        {charts && d?.dwell.length ? (
          <EChart
            option={charts.dwell}
            className="fd-monitor-chart"
            style={{ height: Math.max(300, charts.fenceIds.length * 28 + 80) }}
            onClick={({ dataIndex }) => {
              const id = charts.fenceIds[dataIndex];
              if (id) navigate(pathWith(PATHS.fenceDetail, { id }));
            }}
            data-testid="dashboard-dwell"
          />
        ) : (
          <Empty />
        )}
      </Card>
    </div>
  );
}
