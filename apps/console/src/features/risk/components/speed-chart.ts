import type { EChartsCoreOption } from 'echarts/core';
import type { AlarmTrackPoint } from '../api/alarms';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The speed around the alarm, its span shaded (end: the last fix while it lasts). */
export function speedChartOption(track: readonly AlarmTrackPoint[], alarm: { alarmTime: string; endTime: string }, t: T): EChartsCoreOption {
  const data = track.map((p) => [p.time, p.speedKmh]);
  const end = alarm.endTime || track[track.length - 1]?.time || alarm.alarmTime;
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 24, top: 24, bottom: 48 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', name: t('risk:detail.speed'), min: 0 },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 8 }],
    series: [
      {
        name: t('risk:detail.speed'),
        type: 'line',
        showSymbol: false,
        data,
        markArea: { silent: true, itemStyle: { color: 'rgba(245, 108, 108, 0.15)' }, data: [[{ xAxis: alarm.alarmTime }, { xAxis: end }]] },
      },
    ],
  };
}
