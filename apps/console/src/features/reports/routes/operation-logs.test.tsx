import { fireEvent, screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { PATHS } from '../paths';
import DailyLogPage from './daily-log';
import MonthlyLogPage from './monthly-log';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));

const day = (vehicleId: string, plateNumber: string, reportDate: string, over: Record<string, unknown> = {}) => ({
  vehicleId,
  plateNumber,
  vin: 'LGXCE4CB6R0046600',
  orgId: 'o1',
  orgName: '华南大区',
  driverName: '',
  reportDate,
  mileageM: 123_456,
  startOdometerM: 1_000_000,
  endOdometerM: 1_123_456,
  drivingSeconds: 7_500,
  idleSeconds: 0,
  onlineSeconds: 36_000,
  tripCount: 0,
  maxSpeedKmh: 88.4,
  avgSpeedKmh: 59.3,
  energyConsumedWh: 0,
  energyChargedWh: 0,
  chargeCount: 0,
  alarmCount: 2,
  firstStartTime: '2026-11-24T23:05:00Z',
  lastStopTime: '2026-11-25T10:40:09Z',
  ...over,
});

const month = (vehicleId: string, plateNumber: string, m: string, over: Record<string, unknown> = {}) => ({
  vehicleId,
  plateNumber,
  vin: 'LGXCE4CB6R0046600',
  orgId: 'o1',
  orgName: '华南大区',
  month: m,
  mileageM: 2_500_000,
  operatingDays: 20,
  drivingSeconds: 180_000,
  idleSeconds: 3_600,
  energyConsumedWh: 0,
  energyChargedWh: 0,
  chargeCount: 0,
  alarmCount: 7,
  violationCount: 0,
  avgDailyMileageM: 125_000,
  energyPer100kmWh: 0,
  ...over,
});

const totals = { mileageM: 1_234_567, drivingSeconds: 90_060, energyConsumedWh: 12_345, energyChargedWh: 40_000, chargeCount: 1, alarmCount: 9 };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/reports/daily-logs/export') || url.startsWith('/api/v1/reports/monthly-logs/export')) return ok({ id: 'r1', status: 1 });
    // One vehicle on two days: its rows must stay apart.
    if (url.startsWith('/api/v1/reports/daily-logs?'))
      return ok({
        list: [
          day('v1', '粤B11111', '2026-11-25', { driverName: '张三', energyConsumedWh: 12_345, energyChargedWh: 40_000, chargeCount: 1 }),
          // No SOC or no battery capacity: energy used unknown.
          day('v1', '粤B11111', '2026-11-24', { mileageM: 0, drivingSeconds: 59, firstStartTime: '', lastStopTime: '', energyConsumedWh: null }),
        ],
        total: 2,
        totals,
      });
    if (url.startsWith('/api/v1/reports/monthly-logs?'))
      return ok({ list: [month('v1', '粤B11111', '2026-11', { energyConsumedWh: 300_000, energyPer100kmWh: 12_000, energyChargedWh: 320_000, chargeCount: 9 })], total: 1, totals });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const posts = (prefix: string) =>
  fetchMock.mock.calls.filter(([u, init]) => String(u).startsWith(prefix) && (init as RequestInit | undefined)?.method === 'POST').map(([u]) => new URL(String(u), 'http://x').searchParams);
const queries = (prefix: string) =>
  fetchMock.mock.calls.map(([url]) => String(url)).filter((u) => u.startsWith(prefix)).map((u) => new URL(u, 'http://x').searchParams);
/** The last list request's parameters (none yet: empty). */
const lastQuery = (prefix: string) => queries(prefix).at(-1) ?? new URLSearchParams();
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const cells = (row: HTMLElement) => Array.from(row.querySelectorAll('td')).map((c) => c.textContent);

describe('daily operation log (dailyLog)', () => {
  it('shows each day with km to one decimal, h:mm durations, the driver and energy in kWh', async () => {
    renderWithProviders(<DailyLogPage />, { route: PATHS.dailyLog });
    const first = (await screen.findByText('2026-11-25')).closest('tr') as HTMLElement;
    // Index, plate, date, then the key figure and the driving time.
    expect(cells(first).slice(1, 5)).toEqual(['粤B11111', '2026-11-25', '123.5', '2:05']);
    // Driver, idle 0:00, online 10:00, 0 trips, speeds, energy used, charged and charges,
    // 2 alarms, the Beijing clock of first start and last stop.
    expect(cells(first).slice(6)).toEqual(['张三', '0:00', '10:00', '0', '88.4', '59.3', '12.3', '40.0', '1', '2', '07:05:00', '18:40:09']);
    const second = rowOf('2026-11-24');
    expect(cells(second).slice(3, 5)).toEqual(['0.0', '0:00']);
    // Energy used unknown: '-'; nothing charged.
    expect(cells(second).slice(12, 15)).toEqual(['-', '0.0', '0']);
    expect(cells(second).slice(-2)).toEqual(['--', '--']);
  });

  it('asks for the last 7 days as dates, page 1 of 20, without the operating filter', async () => {
    renderWithProviders(<DailyLogPage />, { route: PATHS.dailyLog });
    await screen.findByText('2026-11-25');
    const params = queries('/api/v1/reports/daily-logs?')[0];
    const today = dayjs().format('YYYY-MM-DD');
    expect(params.get('reportDateEnd')).toBe(today);
    expect(params.get('reportDateStart')).toBe(dayjs().subtract(6, 'day').format('YYYY-MM-DD'));
    expect(params.get('page')).toBe('1');
    expect(params.get('size')).toBe('20');
    expect(params.has('operatingOnly')).toBe(false);
  });

  it('sends the plates, organisations and 仅看运营车辆 from the filters', async () => {
    renderWithProviders(<DailyLogPage />, { route: `${PATHS.dailyLog}?plateNumbers=粤B11111&plateNumbers=粤B22222&orgIds=o1&reportDateStart=2026-11-01%2000:00:00&reportDateEnd=2026-11-30%2023:59:59` });
    await screen.findByText('2026-11-25');
    let params = lastQuery('/api/v1/reports/daily-logs?');
    expect(params.getAll('plateNumbers')).toEqual(['粤B11111', '粤B22222']);
    expect(params.getAll('orgIds')).toEqual(['o1']);
    expect([params.get('reportDateStart'), params.get('reportDateEnd')]).toEqual(['2026-11-01', '2026-11-30']);

    fireEvent.click(screen.getByRole('checkbox', { name: '仅看运营车辆' }));
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(lastQuery('/api/v1/reports/daily-logs?').get('operatingOnly')).toBe('true'));
    params = lastQuery('/api/v1/reports/daily-logs?');
    expect(params.getAll('plateNumbers')).toEqual(['粤B11111', '粤B22222']);
  });

  it('shows the totals over every matching day as the 合计 row', async () => {
    renderWithProviders(<DailyLogPage />, { route: PATHS.dailyLog });
    expect(await screen.findByTestId('totals-mileage')).toHaveTextContent('1234.6');
    // 25 h 1 min: hours run past a day.
    expect(screen.getByTestId('totals-driving')).toHaveTextContent('25:01');
    const summary = screen.getByTestId('totals-mileage').closest('tr') as HTMLElement;
    // 合计 in the index column; the alarm count's total under its column; no total for the rest.
    expect(cells(summary)).toEqual(['合计', '--', '--', '1234.6', '25:01', '--', '--', '--', '--', '--', '--', '--', '12.3', '40.0', '1', '9', '--', '--']);
  });

  it('exports the list’s filters without paging', async () => {
    renderWithProviders(<DailyLogPage />, { route: `${PATHS.dailyLog}?plateNumbers=粤B11111&reportDateStart=2026-11-01%2000:00:00&reportDateEnd=2026-11-30%2023:59:59&page=2` });
    await screen.findByText('2026-11-25');
    fireEvent.click(screen.getByTestId('export-button'));
    await waitFor(() => expect(posts('/api/v1/reports/daily-logs/export')).toHaveLength(1));
    const params = posts('/api/v1/reports/daily-logs/export')[0];
    expect(params.getAll('plateNumbers')).toEqual(['粤B11111']);
    expect([params.get('reportDateStart'), params.get('reportDateEnd')]).toEqual(['2026-11-01', '2026-11-30']);
    expect(params.has('page')).toBe(false);
    expect(params.has('size')).toBe(false);
  });
});

describe('monthly operation log (monthlyLog)', () => {
  it('asks for the current month and shows mileage, operating days and the daily average with the totals row', async () => {
    renderWithProviders(<MonthlyLogPage />, { route: PATHS.monthlyLog });
    const row = (await screen.findByText('2026-11')).closest('tr') as HTMLElement;
    expect(cells(row).slice(1, 9)).toEqual(['粤B11111', '2026-11', '2500.0', '50:00', '华南大区', '20', '125.0', '1:00']);
    // Energy used, per 100 km, charged, charges, alarms.
    expect(cells(row).slice(9)).toEqual(['300.0', '12.0', '320.0', '9', '7']);
    expect(await screen.findByTestId('totals-mileage')).toHaveTextContent('1234.6');

    const params = queries('/api/v1/reports/monthly-logs?')[0];
    const current = dayjs().format('YYYY-MM');
    expect([params.get('startMonth'), params.get('endMonth')]).toEqual([current, current]);
  });

  it('exports the months of the filter', async () => {
    renderWithProviders(<MonthlyLogPage />, { route: `${PATHS.monthlyLog}?startMonth=2026-09&endMonth=2026-11` });
    await screen.findByText('2026-11');
    fireEvent.click(screen.getByTestId('export-button'));
    await waitFor(() => expect(posts('/api/v1/reports/monthly-logs/export')).toHaveLength(1));
    const params = posts('/api/v1/reports/monthly-logs/export')[0];
    expect([params.get('startMonth'), params.get('endMonth')]).toEqual(['2026-09', '2026-11']);
    expect(params.has('page')).toBe(false);
  });
});
