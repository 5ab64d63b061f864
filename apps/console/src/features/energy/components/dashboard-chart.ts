import type { EChartsCoreOption } from 'echarts/core';
import { formatTimeIn } from '@/lib/format';
import type { ChargingDashboard } from '../api/dashboard';

type T = (key: string) => string;

/**
 * kWh by day as bars and spend in yuan as a line on its own axis. Each day comes as
 * its 00:00 Asia/Shanghai instant, so it is labelled in that zone, not the browser's.
 */
export function trendChartOption(trend: ChargingDashboard['trend'], t: T): EChartsCoreOption {
  const days = trend.map((d) => formatTimeIn(d.date, '{m}-{d}'));
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 56, right: 56, top: 36, bottom: 28 },
    xAxis: { type: 'category', data: days },
    yAxis: [
      { type: 'value', name: 'kWh' },
      { type: 'value', name: '元', splitLine: { show: false } },
    ],
    series: [
      { name: t('energy:dashboard.trendEnergy'), type: 'bar', data: trend.map((d) => Number((d.energyWh / 1000).toFixed(2))), itemStyle: { color: '#1764ff' } },
      { name: t('energy:dashboard.trendSpend'), type: 'line', yAxisIndex: 1, smooth: true, data: trend.map((d) => Number((d.totalFen / 100).toFixed(2))), itemStyle: { color: '#fa8c16' } },
    ],
  };
}
