import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { Route, Routes } from 'react-router';
import { renderWithProviders } from '@/testing/render';
import { SHARED_TEMPERATURE_PATH } from '../paths';
import SharedTemperaturePage from './shared-temperature';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));
const shared = {
  plateNumber: '沪A12345',
  expiresAt: '2099-01-01T00:00:00Z',
  latest: [
    { probe: 1, celsius: -18.2 },
    { probe: 2, celsius: -9.5 },
  ],
  latestTime: '2026-11-25T10:00:00+08:00',
  readings: [
    { vehicleId: 'v1', plateNumber: '沪A12345', probeNo: 1, recordTime: '2026-11-25T09:55:00+08:00', celsius: -18.4, outOfRange: false },
    { vehicleId: 'v1', plateNumber: '沪A12345', probeNo: 2, recordTime: '2026-11-25T09:55:00+08:00', celsius: -10.1, outOfRange: true },
  ],
  thresholds: [{ vehicleId: 'v1', probeNo: 0, minCelsius: -20, maxCelsius: -15, minDurationSeconds: 300 }],
};

let fetchMock: ReturnType<typeof vi.fn>;
const open = (token: string) =>
  renderWithProviders(
    <Routes>
      <Route path={SHARED_TEMPERATURE_PATH} element={<SharedTemperaturePage />} />
    </Routes>,
    { route: `/share/temperature/${token}` },
  );

beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/public/temperature/good') return answer(200, { code: 200, msg: 'ok', data: shared });
    if (url === '/api/v1/public/temperature/busy') return answer(429, { code: 4029, msg: '操作过于频繁，请稍后再试', data: null }, { 'retry-after': '17' });
    return answer(404, { code: 4004, msg: '该温度分享链接已失效或已被撤销', data: null });
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('a consignee’s share link (/share/temperature/:token)', () => {
  it('shows the vehicle’s latest probes against their band without a session', async () => {
    open('good');
    expect(await screen.findByText('沪A12345 冷链温度')).toBeInTheDocument();
    const latest = screen.getByTestId('shared-temperature-latest');
    expect(latest).toHaveTextContent('探头1 -18.2 ℃ (-20~-15 ℃)');
    expect(within(latest).getByText(/探头2/).closest('.ant-tag')?.className).toContain('error');
    expect(within(latest).getByText(/探头1/).closest('.ant-tag')?.className).not.toContain('error');
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/public/temperature/good');
    expect(new Headers(init.headers).get('token')).toBeNull();
  });

  it('says a revoked or expired link is gone, and does not offer to retry', async () => {
    open('revoked');
    expect(await screen.findByTestId('shared-temperature-gone')).toHaveTextContent('该温度分享链接已失效或已被撤销');
    expect(screen.queryByRole('button', { name: '重新加载' })).toBeNull();
  });

  it('tells how long to wait when the address made too many calls', async () => {
    open('busy');
    const failed = await screen.findByTestId('shared-temperature-failed');
    expect(failed).toHaveTextContent('访问过于频繁，请 17 秒后再试');
    expect(within(failed).getByRole('button', { name: /重新加载/ })).toBeInTheDocument();
  });
});
