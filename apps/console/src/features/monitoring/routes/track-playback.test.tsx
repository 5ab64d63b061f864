import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import TrackPlaybackPage from './track-playback';

vi.mock('@/components/map/map-view', () => ({
  MapView: ({ children }: { children?: ReactNode }) => <div data-testid="map">{children}</div>,
  useMapApi: () => null,
}));
vi.mock('@/components/chart/echart', () => ({ EChart: ({ 'data-testid': id }: { 'data-testid'?: string }) => <div data-testid={id} /> }));

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const points = [0, 1, 2, 3, 4].map((i) => ({ t: `2026-05-01T02:0${i}:00Z`, lat: 22.5 + i * 0.001, lng: 114, speedKmh: i * 20, heading: 0, soc: 80 - i, mileageKm: null }));
const track = { vehicleId: 'v1', plateNumber: '粤B12345', points, stops: [{ from: '2026-05-01T02:01:00Z', to: '2026-05-01T02:05:00Z', lat: 22.5, lng: 114, durationS: 240 }], speeding: [{ from: '2026-05-01T02:03:00Z', to: '2026-05-01T02:04:00Z', maxSpeedKmh: 108, limitKmh: 100 }], distanceKm: 12.34 };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url.includes('/track/export')) return ok({ id: 'r1', status: 1 });
    if (url.startsWith('/api/v1/monitor/vehicles/v1/track')) return ok(track);
    if (url.startsWith('/api/v1/vehicles')) return ok({ list: [], total: 0 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const calls = (part: string) => fetchMock.mock.calls.map(([u]) => String(u)).filter((u) => u.includes(part));

describe('track playback', () => {
  it('loads the track of the vehicle and range in the URL, lists stops and speeding, and exports the same range', async () => {
    renderWithProviders(<TrackPlaybackPage />, { route: '/carManagement/assetsMonitor/trackPlayback?vehicleId=v1&plate=粤B12345&from=2026-05-01%2008:00:00&to=2026-05-01%2012:00:00' });
    await waitFor(() => expect(screen.getByTestId('track-stops')).toHaveTextContent('4 分 0 秒'));
    const url = new URL(calls('/track?')[0], 'http://x');
    expect(url.pathname).toBe('/api/v1/monitor/vehicles/v1/track');
    expect(url.searchParams.get('from')).toMatch(/^2026-05-01T08:00:00[+-]\d\d:\d\d$/);
    expect(screen.getByTestId('track-stops')).toHaveTextContent('4 分 0 秒');
    fireEvent.click(screen.getByText('超速路段'));
    expect(await screen.findByText('108 / 100 km/h')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('export-button'));
    await waitFor(() => expect(calls('/track/export')).toHaveLength(1));
    expect(new URL(calls('/track/export')[0], 'http://x').searchParams.get('to')).toBe(url.searchParams.get('to'));
  });

  it('seeks to a stop when it is clicked, and plays', async () => {
    renderWithProviders(<TrackPlaybackPage />, { route: '/carManagement/assetsMonitor/trackPlayback?vehicleId=v1&plate=粤B12345&from=2026-05-01%2008:00:00&to=2026-05-01%2012:00:00' });
    const stops = await screen.findByTestId('track-stops');
    await waitFor(() => expect(stops.querySelector('tr.ant-table-row')).not.toBeNull());
    fireEvent.click(stops.querySelector('tr.ant-table-row') as HTMLElement);
    await waitFor(() => expect(screen.getByTestId('track-now')).toHaveTextContent('20.0 km/h'));
    fireEvent.click(screen.getByTestId('track-play'));
    await waitFor(() => expect(screen.getByTestId('track-now')).toHaveTextContent('80.0 km/h'), { timeout: 3000 });
  });

  it('refuses a range longer than seven days without asking the server', async () => {
    renderWithProviders(<TrackPlaybackPage />, { route: '/carManagement/assetsMonitor/trackPlayback?vehicleId=v1&plate=粤B12345&from=2026-05-01%2000:00:00&to=2026-05-09%2000:00:00' });
    fireEvent.click(await screen.findByTestId('track-search'));
    await screen.findByText('时间范围不能超过 7 天');
    expect(calls('/track')).toHaveLength(0);
  });
});
