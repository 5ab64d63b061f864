import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import TemperatureAuthorizationRecordPage from './temperature-authorization-record';
import TemperatureMonitorPage from './temperature-monitor';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const vehicle = {
  vehicleId: 'v1',
  plateNumber: '粤B12345',
  orgName: '华南大区',
  latest: [
    { probe: 1, celsius: -18.2 },
    { probe: 2, celsius: -9.5 },
  ],
  latestTime: '2026-11-25T10:00:00+08:00',
  openAlarms: 1,
  thresholds: [{ vehicleId: 'v1', probeNo: 0, minCelsius: -20, maxCelsius: -15, minDurationSeconds: 300 }],
};
const share = (id: string, revokedAt: string) => ({ id, vehicleId: 'v1', plateNumber: '粤B12345', consigneeName: '王收货', consigneePhone: '13900000000', expiresAt: '2099-01-01T00:00:00Z', createdAt: '2026-11-25T10:00:00Z', revokedAt });

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url.startsWith('/api/v1/temperature/vehicles')) return ok({ list: [vehicle], total: 1 });
    if (url.startsWith('/api/v1/temperature/shares?') || url === '/api/v1/temperature/shares') return ok({ list: [share('s1', ''), share('s2', '2026-11-25T11:00:00Z')], total: 2 });
    if (url.startsWith('/api/v1/temperature/shares/')) return ok({});
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/temperature/alarms/export')) return ok({ id: 'r1', status: 1 });
    if (url.startsWith('/api/v1/temperature/alarms')) return ok({ list: [], total: 0 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const calls = (prefix: string) => fetchMock.mock.calls.filter(([u]) => String(u).startsWith(prefix));
const posts = (prefix: string) => calls(prefix).filter(([, init]) => (init as RequestInit | undefined)?.method === 'POST');

describe('temperature monitor (temperatureMonitor)', () => {
  it('shows each probe, marks the one out of band and the alarm state', async () => {
    renderWithProviders(<TemperatureMonitorPage />, { route: '/carManagement/assetsMonitor/temperatureMonitor?alarmOnly=true' });
    const row = (await screen.findByText('华南大区')).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('探头1 -18.2 ℃');
    expect(row).toHaveTextContent('告警中 1');
    const outOfBand = within(row).getByText(/探头2/).closest('.ant-tag') as HTMLElement;
    expect(outOfBand.className).toContain('error');
    const url = new URL(String(calls('/api/v1/temperature/vehicles')[0][0]), 'http://x');
    expect(url.searchParams.get('alarmOnly')).toBe('true');
  });

  it('exports the alarm list with its filters and without paging', async () => {
    renderWithProviders(<TemperatureMonitorPage />, { route: '/carManagement/assetsMonitor/temperatureMonitor?openOnly=true&page=2' });
    fireEvent.click(await screen.findByRole('tab', { name: '温度告警' }));
    await waitFor(() => expect(calls('/api/v1/temperature/alarms')).not.toHaveLength(0));
    fireEvent.click(await screen.findByTestId('export-button'));
    await waitFor(() => expect(posts('/api/v1/temperature/alarms/export')).toHaveLength(1));
    const exported = new URL(String(posts('/api/v1/temperature/alarms/export')[0][0]), 'http://x');
    expect(exported.searchParams.get('openOnly')).toBe('true');
    expect(exported.searchParams.has('page')).toBe(false);
  });
});

describe('authorisation record (authorizationRecord)', () => {
  it('lists shares with their state and revokes an active one after confirming', async () => {
    renderWithProviders(<TemperatureAuthorizationRecordPage />, { route: '/carManagement/assetsMonitor/authorizationRecord?vehicleId=v1&plate=粤B12345' });
    await screen.findByText('已撤销');
    expect(screen.getByText('有效')).toBeInTheDocument();
    expect(new URL(String(calls('/api/v1/temperature/shares')[0][0]), 'http://x').searchParams.get('vehicleId')).toBe('v1');
    const revokes = screen.getAllByTestId('share-revoke');
    expect(revokes).toHaveLength(1);
    fireEvent.click(revokes[0]);
    fireEvent.click(await screen.findByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(calls('/api/v1/temperature/shares/s1/revoke')).toHaveLength(1));
  });
});
