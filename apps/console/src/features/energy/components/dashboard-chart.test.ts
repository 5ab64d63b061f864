import { describe, expect, it } from 'vitest';
import { trendChartOption } from './dashboard-chart';

// A browser west of Shanghai: the server's days (00:00 +08:00) fall on the
// previous local date here (Node applies a changed TZ to later Date calls).
process.env.TZ = 'UTC';

type Option = { xAxis: { data: string[] }; series: { type: string; data: number[] }[] };
const day = (date: string) => ({ date, sessionCount: 0, energyWh: 0, totalFen: 0 });

describe('trendChartOption', () => {
  it('plots kWh (from Wh) as bars and yuan (from fen) as a line, one point per day', () => {
    const option = trendChartOption(
      [
        { date: '2026-11-01T00:00:00+08:00', sessionCount: 3, energyWh: 125_400, totalFen: 10_350 },
        { date: '2026-11-02T00:00:00+08:00', sessionCount: 0, energyWh: 0, totalFen: 0 },
      ],
      (k) => k,
    ) as Option;
    expect(option.xAxis.data).toEqual(['11-01', '11-02']);
    expect(option.series[0]).toMatchObject({ type: 'bar', data: [125.4, 0] });
    expect(option.series[1]).toMatchObject({ type: 'line', data: [103.5, 0] });
  });

  it('labels 11-01…11-28 as Asia/Shanghai days whatever the browser’s zone', () => {
    expect(new Date('2026-11-01T00:00:00+08:00').getDate()).toBe(31); // the zone this file runs in
    const days = Array.from({ length: 28 }, (_, i) => new Date(Date.UTC(2026, 9, 31, 16) + i * 86_400_000).toISOString());
    const option = trendChartOption(days.map(day), (k) => k) as Option;
    expect(option.xAxis.data[0]).toBe('11-01');
    expect(option.xAxis.data[27]).toBe('11-28');
    expect(option.xAxis.data).toHaveLength(28);
  });
});
