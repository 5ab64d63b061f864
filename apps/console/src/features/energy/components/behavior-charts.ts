import type { EChartsCoreOption } from 'echarts/core';
import type { BehaviorAnalysis, BehaviorFigures } from '../api/behavior';

type T = (key: string, options?: Record<string, unknown>) => string;

const ENERGY_COLOR = '#1764ff';
const SESSIONS_COLOR = '#fa8c16';

/** Watt-hours as kWh rounded to two decimals, as charts plot them. */
const kwhValue = (wh: number) => Number((wh / 1000).toFixed(2));

/** Sessions started per hour of the day as bars, their kWh as a line on its own axis; 24 hours even when some are missing. */
export function hourChartOption(byHour: BehaviorAnalysis['byHour'], t: T): EChartsCoreOption {
  const hours = Array.from({ length: 24 }, (_, hour) => byHour.find((h) => h.hour === hour) ?? { hour, sessionCount: 0, energyWh: 0 });
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 48, right: 56, top: 36, bottom: 28 },
    xAxis: { type: 'category', data: hours.map((h) => `${String(h.hour).padStart(2, '0')}:00`) },
    yAxis: [
      { type: 'value', name: t('energy:behavior.sessionsAxis'), minInterval: 1 },
      { type: 'value', name: 'kWh', splitLine: { show: false } },
    ],
    series: [
      { name: t('energy:behavior.sessions'), type: 'bar', data: hours.map((h) => h.sessionCount), itemStyle: { color: SESSIONS_COLOR } },
      { name: t('energy:behavior.energy'), type: 'line', yAxisIndex: 1, smooth: true, data: hours.map((h) => kwhValue(h.energyWh)), itemStyle: { color: ENERGY_COLOR } },
    ],
  };
}

/** Sessions by SOC at plug-in, one bar per bucket ('0-10%' … '90-100%'), and the sessions that reported none as their own bar when there are any. */
export function socChartOption(buckets: BehaviorAnalysis['startSoc'], unknownCount: number, t: T): EChartsCoreOption {
  const labels = buckets.map((b) => `${b.fromPercent}-${b.toPercent}%`);
  const values = buckets.map((b) => b.sessionCount);
  if (unknownCount > 0) {
    labels.push(t('energy:behavior.socUnknown'));
    values.push(unknownCount);
  }
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 24, top: 24, bottom: 28 },
    xAxis: { type: 'category', data: labels },
    yAxis: { type: 'value', name: t('energy:behavior.sessionsAxis'), minInterval: 1 },
    series: [{ name: t('energy:behavior.sessions'), type: 'bar', data: values, itemStyle: { color: ENERGY_COLOR } }],
  };
}

/** The time-of-use bands in the order people read them, with their colours. */
const BANDS = [
  { key: 'peak', field: 'peakEnergyWh', color: '#f5222d' },
  { key: 'flat', field: 'flatEnergyWh', color: '#faad14' },
  { key: 'valley', field: 'valleyEnergyWh', color: '#52c41a' },
  { key: 'unknown', field: 'unknownBandEnergyWh', color: '#bfbfbf' },
] as const;

/** Each band's share of the energy, percent with one decimal (all 0 without energy). */
export function bandShares(f: Pick<BehaviorFigures, 'peakEnergyWh' | 'flatEnergyWh' | 'valleyEnergyWh' | 'unknownBandEnergyWh'>): { key: (typeof BANDS)[number]['key']; wh: number; percent: number }[] {
  const total = BANDS.reduce((sum, b) => sum + f[b.field], 0);
  return BANDS.map((b) => ({ key: b.key, wh: f[b.field], percent: total > 0 ? Math.round((f[b.field] / total) * 1000) / 10 : 0 }));
}

/** Peak, flat and valley (and unknown, when any) energy as one 100% stacked bar, each band labelled with its share. */
export function bandChartOption(f: BehaviorFigures, t: T): EChartsCoreOption {
  const shares = bandShares(f).filter((s) => s.key !== 'unknown' || s.wh > 0);
  return {
    tooltip: { trigger: 'item', valueFormatter: (v: unknown) => `${String(v)}%` },
    legend: { top: 0 },
    grid: { left: 16, right: 16, top: 40, bottom: 8, containLabel: true },
    xAxis: { type: 'value', max: 100, axisLabel: { formatter: '{value}%' } },
    yAxis: { type: 'category', data: [t('energy:behavior.bandAxis')], axisLabel: { show: false } },
    series: shares.map((s) => ({
      name: t(`energy:behavior.band.${s.key}`),
      type: 'bar',
      stack: 'band',
      barWidth: 36,
      data: [s.percent],
      label: { show: s.percent >= 5, formatter: '{c}%' },
      itemStyle: { color: BANDS.find((b) => b.key === s.key)?.color },
    })),
  };
}
