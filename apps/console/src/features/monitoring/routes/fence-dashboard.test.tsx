import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { renderWithProviders } from '@/testing/render';
import FenceDashboardPage, { dashboardCharts } from './fence-dashboard';

vi.mock('@/components/chart/echart', () => ({ EChart: ({ 'data-testid': id }: { 'data-testid'?: string }) => <div data-testid={id} /> }));

const data = {
  fenceCount: 12,
  enabledCount: 10,
  vehiclesInside: 37,
  days: [
    { day: '2026-05-01', entries: 5, exits: 4 },
    { day: '2026-05-02', entries: 7, exits: 6 },
  ],
  dwell: Array.from({ length: 20 }, (_, i) => ({ geofenceId: `f${i}`, name: `围栏${i}`, entries: i, avgDwellS: 600, maxDwellS: 3600 })),
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  const answer = (body: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data: body })));
  fetchMock = vi.fn((url: string) => (String(url).startsWith('/api/v1/orgs/simple') ? answer([{ orgId: 'o1', parentId: '', name: '华南大区', orgCode: 'r', level: 1 }]) : answer(data)));
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('fence dashboard', () => {
  it('shows the counts and asks for the last seven whole days', async () => {
    renderWithProviders(<FenceDashboardPage />, { route: '/carManagement/assetsMonitor/fenceDashboard' });
    await waitFor(() => expect(screen.getByTestId('fence-dashboard')).toHaveTextContent('37'));
    expect(screen.getByTestId('fence-dashboard')).toHaveTextContent('22'); // 5+4+7+6 crossings
    const url = new URL(String(fetchMock.mock.calls[0][0]), 'http://x');
    expect(url.pathname).toBe('/api/v1/geofences/dashboard');
    const from = new Date(url.searchParams.get('from') as string);
    const to = new Date(url.searchParams.get('to') as string);
    expect(Math.round((to.getTime() - from.getTime()) / 86_400_000)).toBe(7);
    expect(await screen.findByTestId('dashboard-days')).toBeInTheDocument();
  });

  it("asks for the organisations' fences named in the URL", async () => {
    renderWithProviders(<FenceDashboardPage />, { route: '/carManagement/assetsMonitor/fenceDashboard?orgIds=o1&orgIds=o2' });
    await waitFor(() => expect(screen.getByTestId('fence-dashboard')).toHaveTextContent('37'));
    const call = fetchMock.mock.calls.find(([u]) => String(u).startsWith('/api/v1/geofences/dashboard'));
    const url = new URL(String(call?.[0]), 'http://x');
    expect(url.searchParams.getAll('orgIds')).toEqual(['o1', 'o2']);
  });

  it('charts the dwell of the fifteen most entered fences, in minutes', () => {
    const charts = dashboardCharts(data, i18n.t.bind(i18n));
    expect(charts.fenceIds).toHaveLength(15);
    expect(charts.fenceIds.at(-1)).toBe('f19');
    expect(charts.dwell.series[0].data[0]).toBe(10);
    expect(charts.days.series[1].data).toEqual([4, 6]);
  });
});
