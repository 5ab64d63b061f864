import type { EChartsCoreOption } from 'echarts/core';
import type { SafetyWeek } from '../api/safety';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The weekly trend: alarms per 100 km as bars (left axis), the average score as a line (right axis, 0-100). */
export function safetyTrendOption(weeks: readonly SafetyWeek[], t: T): EChartsCoreOption {
  const perKm = t('reports:safety.trend.per100km');
  const score = t('reports:safety.trend.averageScore');
  return {
    tooltip: { trigger: 'axis' },
    legend: { data: [perKm, score], top: 0 },
    grid: { left: 48, right: 48, top: 36, bottom: 32 },
    xAxis: { type: 'category', data: weeks.map((w) => t('reports:safety.trend.week', { year: w.isoYear, week: w.isoWeek, start: w.weekStart })) },
    yAxis: [
      { type: 'value', name: perKm, min: 0 },
      { type: 'value', name: score, min: 0, max: 100 },
    ],
    series: [
      { name: perKm, type: 'bar', data: weeks.map((w) => w.alarmsPer100km), barMaxWidth: 32 },
      // A week without a scored vehicle leaves a gap, not a zero.
      { name: score, type: 'line', yAxisIndex: 1, connectNulls: false, data: weeks.map((w) => w.averageScore ?? null) },
    ],
  };
}
