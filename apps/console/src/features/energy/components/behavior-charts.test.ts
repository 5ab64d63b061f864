import { describe, expect, it } from 'vitest';
import { bandChartOption, bandShares, hourChartOption, socChartOption } from './behavior-charts';

const t = (k: string) => k;

const figures = {
  sessionCount: 4,
  energyWh: 70_000,
  totalFen: 8_000,
  peakEnergyWh: 10_000,
  flatEnergyWh: 20_000,
  valleyEnergyWh: 40_000,
  unknownBandEnergyWh: 0,
  offPeakShare: 40 / 70,
  avgPriceFenPerMwh: 114_286,
  vehicleCount: 3,
  vehiclesWithDistance: 0,
  distanceM: 0,
};

describe('hourChartOption', () => {
  it('plots all 24 hours, filling hours without sessions with 0, and kWh from Wh', () => {
    const option = hourChartOption(
      [
        { hour: 2, sessionCount: 2, energyWh: 40_000 },
        { hour: 23, sessionCount: 1, energyWh: 10_500 },
      ],
      t,
    ) as { xAxis: { data: string[] }; series: { type: string; data: number[] }[] };
    expect(option.xAxis.data).toHaveLength(24);
    expect(option.xAxis.data[2]).toBe('02:00');
    expect(option.series[0].data[2]).toBe(2);
    expect(option.series[0].data[3]).toBe(0);
    expect(option.series[1]).toMatchObject({ type: 'line' });
    expect(option.series[1].data[23]).toBe(10.5);
  });
});

describe('socChartOption', () => {
  it('labels buckets as percent ranges and adds the unknown bar only when some sessions had no SOC', () => {
    const buckets = [
      { fromPercent: 0, toPercent: 10, sessionCount: 0 },
      { fromPercent: 10, toPercent: 20, sessionCount: 3 },
    ];
    const withUnknown = socChartOption(buckets, 2, t) as { xAxis: { data: string[] }; series: { data: number[] }[] };
    expect(withUnknown.xAxis.data).toEqual(['0-10%', '10-20%', 'energy:behavior.socUnknown']);
    expect(withUnknown.series[0].data).toEqual([0, 3, 2]);
    const without = socChartOption(buckets, 0, t) as { xAxis: { data: string[] } };
    expect(without.xAxis.data).toEqual(['0-10%', '10-20%']);
  });
});

describe('bandShares', () => {
  it('gives each band its share of the energy in percent with one decimal', () => {
    expect(bandShares(figures).map((s) => [s.key, s.percent])).toEqual([
      ['peak', 14.3],
      ['flat', 28.6],
      ['valley', 57.1],
      ['unknown', 0],
    ]);
  });
  it('is all zero without energy', () => {
    expect(bandShares({ peakEnergyWh: 0, flatEnergyWh: 0, valleyEnergyWh: 0, unknownBandEnergyWh: 0 }).every((s) => s.percent === 0)).toBe(true);
  });
});

describe('bandChartOption', () => {
  it('stacks peak, flat and valley, and unknown only when some energy has no band', () => {
    const option = bandChartOption(figures, t) as { series: { name: string; stack: string; data: number[] }[] };
    expect(option.series.map((s) => s.name)).toEqual(['energy:behavior.band.peak', 'energy:behavior.band.flat', 'energy:behavior.band.valley']);
    expect(option.series.every((s) => s.stack === 'band')).toBe(true);
    const unknown = bandChartOption({ ...figures, unknownBandEnergyWh: 10_000 }, t) as { series: { name: string; data: number[] }[] };
    expect(unknown.series.map((s) => s.name)).toContain('energy:behavior.band.unknown');
    expect(unknown.series.reduce((sum, s) => sum + s.data[0], 0)).toBeCloseTo(100, 0);
  });
});
