import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { PATHS } from '../paths';
import DailyLogPage from './daily-log';
import SafetyReportPage from './safety-report';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });

const rate = (alarmType: string, alarmCount: number, per100km: number, weight: number) => ({ alarmType, alarmCount, per100km, weight });
const row = (id: string, name: string, rank: number, score: number | null, over: Record<string, unknown> = {}) => ({
  id,
  name,
  orgId: 'o1',
  orgName: '华南大区',
  mileageM: 200_000,
  alarmCount: 4,
  alarmsPer100km: 2,
  score,
  rank,
  byType: [rate('OVERSPEED', 3, 1.5, 2), rate('COLLISION', 1, 0.5, 5)],
  vehicleCount: 1,
  ...over,
});
const summary = {
  mileageM: 255_000,
  alarmCount: 6,
  alarmsPer100km: 2.35,
  byType: [rate('OVERSPEED', 4, 1.57, 2), rate('COLLISION', 1, 0.39, 5), rate('THEFT', 0, 0, 0)],
  vehicleCount: 3,
  minMileageM: 10_000,
};
const trend = {
  weeks: [
    { isoYear: 2026, isoWeek: 41, weekStart: '2026-10-05', mileageM: 105_000, alarmCount: 4, alarmsPer100km: 3.81, averageScore: 94, scoredVehicles: 1 },
    { isoYear: 2026, isoWeek: 42, weekStart: '2026-10-12', mileageM: 150_000, alarmCount: 2, alarmsPer100km: 1.33, averageScore: 94.5, scoredVehicles: 2 },
  ],
};

let fetchMock: ReturnType<typeof vi.fn>;
let permissions: string[];
let empty: boolean;
beforeEach(() => {
  permissions = ['oss:asset:report'];
  empty = false;
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/me') return ok(me(permissions));
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/reports/safety/ranking?'))
      return ok(empty ? { list: [], total: 0 } : { list: [row('v1', '粤B00001', 1, 94), row('v0', '粤B00000', 2, 94.5), row('v2', '粤B00002', 3, null, { mileageM: 5_000 })], total: 3 });
    if (url.startsWith('/api/v1/reports/safety/summary?')) return ok(empty ? { ...summary, mileageM: 0, alarmCount: 0, byType: [] } : summary);
    if (url.startsWith('/api/v1/reports/safety/trend?')) return ok(empty ? { weeks: [] } : trend);
    if (url === '/api/v1/reports/safety/weights') return ok({ weights: [{ alarmType: 'OVERSPEED', weight: 2, customized: false }, { alarmType: 'COLLISION', weight: 5, customized: true }] });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const queries = (prefix: string) =>
  fetchMock.mock.calls.map(([url]) => String(url)).filter((u) => u.startsWith(prefix)).map((u) => new URL(u, 'http://x').searchParams);
const lastQuery = (prefix: string) => queries(prefix).at(-1) ?? new URLSearchParams();
const cells = (tr: HTMLElement) => Array.from(tr.querySelectorAll('td')).map((c) => c.textContent);

describe('safety report (carSafetyReport)', () => {
  it('asks for the last 30 days and ranks vehicles worst first, a row without a score shown as --', async () => {
    renderWithProviders(<SafetyReportPage />, { route: PATHS.carSafetyReport });
    const first = (await screen.findByText('粤B00001')).closest('tr') as HTMLElement;
    // Rank, plate, organisation, score, km, alarms, per 100 km, the types.
    expect(cells(first)).toEqual(['1', '粤B00001', '华南大区', '94.0', '200.0', '4', '2.00', '超速 3、碰撞预警 1']);
    expect(cells(screen.getByText('粤B00002').closest('tr') as HTMLElement)[3]).toBe('--');
    const params = lastQuery('/api/v1/reports/safety/ranking?');
    expect(params.get('reportDateEnd')).toBe(dayjs().format('YYYY-MM-DD'));
    expect(params.get('reportDateStart')).toBe(dayjs().subtract(29, 'day').format('YYYY-MM-DD'));
    expect(params.get('dimension')).toBe('VEHICLE');
    expect(params.has('bestFirst')).toBe(false);
    expect(lastQuery('/api/v1/reports/safety/summary?').get('reportDateStart')).toBe(params.get('reportDateStart'));
  });

  it('shows alarms per 100 km by type and the weekly trend', async () => {
    renderWithProviders(<SafetyReportPage />, { route: PATHS.carSafetyReport });
    const types = await screen.findByTestId('safety-by-type');
    const overspeed = (await within(types).findByText('超速')).closest('tr') as HTMLElement;
    expect(cells(overspeed)).toEqual(['超速', '4', '1.57', '2']);
    // A type without alarms and without weight is left out.
    expect(within(types).queryByText('车辆被盗')).toBeNull();
    expect(await screen.findByTestId('safety-trend')).toBeInTheDocument();
  });

  it('switches to the drivers tab and the best-first order on page 1', async () => {
    renderWithProviders(<SafetyReportPage />, { route: `${PATHS.carSafetyReport}?page=2` });
    await screen.findByText('粤B00001');
    fireEvent.click(screen.getByRole('tab', { name: '司机' }));
    await waitFor(() => expect(lastQuery('/api/v1/reports/safety/ranking?').get('dimension')).toBe('DRIVER'));
    expect(lastQuery('/api/v1/reports/safety/ranking?').get('page')).toBe('1');
    fireEvent.click(screen.getByText('由高到低'));
    await waitFor(() => expect(lastQuery('/api/v1/reports/safety/ranking?').get('bestFirst')).toBe('true'));
    expect(lastQuery('/api/v1/reports/safety/ranking?').get('dimension')).toBe('DRIVER');
  });

  it('shows the empty states without data', async () => {
    empty = true;
    renderWithProviders(<SafetyReportPage />, { route: PATHS.carSafetyReport });
    await waitFor(() => expect(queries('/api/v1/reports/safety/trend?').length).toBeGreaterThan(0));
    expect((await screen.findAllByText('暂无数据')).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('safety-trend')).toBeNull();
  });

  it('hides the weights without as:alarm:rule', async () => {
    renderWithProviders(<SafetyReportPage />, { route: PATHS.carSafetyReport });
    await screen.findByText('粤B00001');
    expect(screen.queryByTestId('safety-weights-button')).toBeNull();
  });

  it('saves a changed weight for a rule editor', async () => {
    permissions = ['oss:asset:report', 'as:alarm:rule'];
    renderWithProviders(<SafetyReportPage />, { route: PATHS.carSafetyReport });
    fireEvent.click(await screen.findByTestId('safety-weights-button'));
    const input = await screen.findByRole('spinbutton', { name: '超速' });
    fireEvent.change(input, { target: { value: '4' } });
    fireEvent.blur(input);
    fireEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    await waitFor(() => {
      const put = fetchMock.mock.calls.find(([url, init]) => url === '/api/v1/reports/safety/weights' && (init as RequestInit | undefined)?.method === 'PUT');
      expect(put).toBeTruthy();
      expect(JSON.parse(String((put?.[1] as RequestInit).body))).toEqual({ weights: [{ alarmType: 'OVERSPEED', weight: 4 }] });
    });
  });

  it('is reached from the daily log', async () => {
    fetchMock.mockImplementation((url: string) => (url.startsWith('/api/v1/reports/daily-logs?') ? ok({ list: [], total: 0, totals: { mileageM: 0, drivingSeconds: 0, energyConsumedWh: 0, energyChargedWh: 0, chargeCount: 0, alarmCount: 0 } }) : ok(null)));
    renderWithProviders(<DailyLogPage />, { route: PATHS.dailyLog });
    expect(await screen.findByTestId('safety-report-link')).toHaveTextContent('车辆安全报告');
  });
});
