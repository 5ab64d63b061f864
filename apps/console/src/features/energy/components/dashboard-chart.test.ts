import { describe, expect, it } from 'vitest';
import { trendChartOption } from './dashboard-chart';

describe('trendChartOption', () => {
  it('plots kWh (from Wh) as bars and yuan (from fen) as a line, one point per day', () => {
    const option = trendChartOption(
      [
        { date: new Date(2026, 10, 1).toISOString(), sessionCount: 3, energyWh: 125_400, totalFen: 10_350 },
        { date: new Date(2026, 10, 2).toISOString(), sessionCount: 0, energyWh: 0, totalFen: 0 },
      ],
      (k) => k,
    ) as { xAxis: { data: string[] }; series: { type: string; data: number[] }[] };
    expect(option.xAxis.data).toEqual(['11-01', '11-02']);
    expect(option.series[0]).toMatchObject({ type: 'bar', data: [125.4, 0] });
    expect(option.series[1]).toMatchObject({ type: 'line', data: [103.5, 0] });
  });
});
