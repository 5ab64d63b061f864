import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { temperatureChartOption } from '../routes/temperature-chart';
import { bandOf, expiryAllowed, outOfBand, seriesByProbe, seriesRangeError, shareLink, shareState, temperatureAlarmQuery, temperatureVehicleQuery, type TemperatureThreshold } from './temperature';

const band = (probeNo: number, minCelsius: number, maxCelsius: number): TemperatureThreshold => ({ vehicleId: 'v1', probeNo, minCelsius, maxCelsius, minDurationSeconds: 300 });
const reading = (probeNo: number, recordTime: string, celsius: number) => ({ vehicleId: 'v1', plateNumber: '粤B1', probeNo, celsius, recordTime, outOfRange: false });

describe('temperature bands', () => {
  it("uses a probe's own band before the vehicle's", () => {
    const bands = [band(0, -20, -15), band(2, 0, 8)];
    expect(bandOf(bands, 2)?.maxCelsius).toBe(8);
    expect(bandOf(bands, 1)?.maxCelsius).toBe(-15);
    expect(bandOf([band(2, 0, 8)], 1)).toBeUndefined();
  });

  it('is out of band only outside [min, max] and never without a band', () => {
    expect(outOfBand(-15, band(0, -20, -15))).toBe(false);
    expect(outOfBand(-14.9, band(0, -20, -15))).toBe(true);
    expect(outOfBand(-21, band(0, -20, -15))).toBe(true);
    expect(outOfBand(40, undefined)).toBe(false);
  });
});

describe('chart range and series', () => {
  it('refuses a missing, reversed or longer than 7 days range', () => {
    const now = dayjs('2026-11-25T12:00:00Z');
    expect(seriesRangeError(null, now)).toBe('required');
    expect(seriesRangeError(now, now.subtract(1, 'hour'))).toBe('order');
    expect(seriesRangeError(now.subtract(7, 'day').subtract(1, 'second'), now)).toBe('tooLong');
    expect(seriesRangeError(now.subtract(7, 'day'), now)).toBe('');
  });

  it('draws one line per probe in probe order with its band as mark lines', () => {
    const readings = [reading(2, '2026-11-25T10:00:00Z', 3), reading(1, '2026-11-25T10:00:00Z', -18), reading(1, '2026-11-25T10:05:00Z', -17)];
    expect([...seriesByProbe(readings).keys()]).toEqual([1, 2]);
    const t = (key: string, o?: Record<string, unknown>) => `${key}:${String(o?.n ?? '')}`;
    const option = temperatureChartOption(readings, [band(0, -20, -15)], t) as { series: { name: string; data: unknown[]; markLine?: { data: { yAxis: number }[] } }[] };
    expect(option.series.map((s) => s.name)).toEqual(['monitoring:temperature.probe:1', 'monitoring:temperature.probe:2']);
    expect(option.series[0].data).toEqual([
      ['2026-11-25T10:00:00Z', -18],
      ['2026-11-25T10:05:00Z', -17],
    ]);
    expect(option.series[1].markLine?.data.map((d) => d.yAxis)).toEqual([-20, -15]);
  });
});

describe('shares', () => {
  const now = dayjs('2026-11-25T12:00:00Z');
  it('is revoked, expired or active', () => {
    expect(shareState({ expiresAt: '2026-11-26T00:00:00Z', revokedAt: '2026-11-25T11:00:00Z' }, now)).toBe('revoked');
    expect(shareState({ expiresAt: '2026-11-25T11:00:00Z', revokedAt: '' }, now)).toBe('expired');
    expect(shareState({ expiresAt: '2026-11-26T00:00:00Z', revokedAt: '' }, now)).toBe('active');
  });

  it('allows an expiry after now and at most 30 days ahead', () => {
    expect(expiryAllowed(now.add(1, 'hour'), now)).toBe(true);
    expect(expiryAllowed(now.add(30, 'day'), now)).toBe(true);
    expect(expiryAllowed(now.add(30, 'day').add(1, 'minute'), now)).toBe(false);
    expect(expiryAllowed(now.subtract(1, 'minute'), now)).toBe(false);
  });

  it('links to the public route with the token', () => {
    expect(shareLink('https://fleet.example', 'ab12')).toBe('https://fleet.example/share/temperature/ab12');
    expect(shareLink('https://fleet.example', 'a/b+c')).toBe('https://fleet.example/share/temperature/a%2Fb%2Bc');
  });
});

describe('list queries', () => {
  it('maps the URL filters to the routes', () => {
    expect(temperatureVehicleQuery({ plateSearch: '粤B', alarmOnly: 'true', orgIds: ['o1'] }, 2, 20)).toEqual({ page: 2, size: 20, plateSearch: '粤B', orgIds: ['o1'], alarmOnly: true });
    expect(temperatureAlarmQuery({ plateNumbers: ['粤B1'], openOnly: 'false' }, 1, 10)).toMatchObject({ page: 1, size: 10, plateNumbers: ['粤B1'], openOnly: undefined });
  });
});
