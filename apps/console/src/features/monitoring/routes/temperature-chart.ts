import type { EChartsCoreOption } from 'echarts/core';
import { bandOf, seriesByProbe, type TemperatureReading, type TemperatureThreshold } from '../api/temperature';

type T = (key: string, options?: Record<string, unknown>) => string;

/** One line per probe over time, with each probe's band as dashed min/max lines. */
export function temperatureChartOption(readings: readonly TemperatureReading[], thresholds: readonly TemperatureThreshold[], t: T): EChartsCoreOption {
  const lines = seriesByProbe(readings);
  const series = [...lines.entries()].map(([probe, data]) => {
    const band = bandOf(thresholds, probe);
    return {
      name: t('monitoring:temperature.probe', { n: probe }),
      type: 'line',
      showSymbol: false,
      data,
      markLine: band
        ? {
            symbol: 'none',
            lineStyle: { type: 'dashed', color: '#f56c6c' },
            data: [
              { yAxis: band.minCelsius, name: t('monitoring:temperature.minLine', { n: probe }) },
              { yAxis: band.maxCelsius, name: t('monitoring:temperature.maxLine', { n: probe }) },
            ],
          }
        : undefined,
    };
  });
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 48, right: 24, top: 36, bottom: 48 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', name: '℃', scale: true },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 8 }],
    series,
  };
}
