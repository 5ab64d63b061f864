import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CrossRailPage from './cross-rail';
import FenceEditPage from './fence-edit';
import FenceManagePage from './fence-manage';

// jsdom has no canvas: the map is a plain box here (its logic is tested on its own).
vi.mock('@/components/map/map-view', () => ({
  MapView: ({ children }: { children?: ReactNode }) => <div data-testid="map">{children}</div>,
  MapOverlay: ({ children }: { children?: ReactNode }) => <div>{children}</div>,
  useMapApi: () => null,
}));

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const fence = {
  id: 'f1',
  name: '深圳仓',
  shape: 'circle',
  purpose: 'area',
  center: { lat: 22.5, lng: 114 },
  radiusM: 800,
  points: [],
  corridorWidthM: null,
  speedLimitKmh: 30,
  activeWindows: [],
  dwellSeconds: 60,
  alarmOnEnter: true,
  alarmOnExit: false,
  vehicleIds: [],
  orgId: 'o1',
  orgName: '华南大区',
  enabled: true,
  insideCount: 4,
  createdAt: '2026-05-01T08:00:00+08:00',
  updatedAt: '2026-05-01T08:00:00+08:00',
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url.startsWith('/api/v1/geofences/f1') && init?.method === 'PUT') return ok({ ...fence, enabled: false });
    if (url.startsWith('/api/v1/geofences/f1') && init?.method === 'DELETE') return ok({});
    if (url.startsWith('/api/v1/geofences?') || url === '/api/v1/geofences') return ok({ list: [fence], total: 1 });
    if (url.startsWith('/api/v1/geofence-crossings/export')) return ok({ id: 'r1', status: 1 });
    if (url.startsWith('/api/v1/geofence-crossings')) return ok({ list: [{ id: 'x1', geofenceId: 'f1', geofenceName: '深圳仓', vehicleId: 'v1', plateNumber: '粤B12345', direction: 'exit', time: '2026-05-01T09:00:00+08:00', lat: 22.5, lng: 114, dwellSeconds: 3725 }], total: 1 });
    if (url === '/api/v1/orgs/simple') return ok([{ orgId: 'o1', parentId: '', name: '华南大区', orgCode: 'r', level: 1 }]);
    if (url.startsWith('/api/v1/vehicles')) return ok({ list: [], total: 0 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const calls = (prefix: string, method = 'GET') => fetchMock.mock.calls.filter(([u, init]) => String(u).startsWith(prefix) && ((init as RequestInit | undefined)?.method ?? 'GET') === method);

describe('fence management (managePage)', () => {
  it('filters by the URL and disables a fence by sending it back whole with enabled off', async () => {
    renderWithProviders(<FenceManagePage />, { route: '/carManagement/assetsMonitor/managePage?shapes=circle&enabled=true&name=深圳' });
    const row = (await screen.findByText('深圳仓')).closest('tr') as HTMLElement;
    const url = new URL(String(calls('/api/v1/geofences')[0][0]), 'http://x');
    expect(url.searchParams.getAll('shapes')).toEqual(['circle']);
    expect(url.searchParams.get('enabled')).toBe('true');
    expect(url.searchParams.get('name')).toBe('深圳');
    for (const text of ['圆形', '区域围栏', '30 km/h', '全部车辆', '华南大区']) expect(row).toHaveTextContent(text);
    fireEvent.click(screen.getByTestId('fence-enabled'));
    await waitFor(() => expect(calls('/api/v1/geofences/f1', 'PUT')).toHaveLength(1));
    const body = JSON.parse(String((calls('/api/v1/geofences/f1', 'PUT')[0][1] as RequestInit).body));
    expect(body).toMatchObject({ name: '深圳仓', shape: 'circle', radiusM: 800, center: { lat: 22.5, lng: 114 }, enabled: false, orgId: 'o1' });
    expect(body).not.toHaveProperty('id');
    expect(body).not.toHaveProperty('insideCount');
  });

  it('deletes a fence only after the confirmation', async () => {
    renderWithProviders(<FenceManagePage />, { route: '/carManagement/assetsMonitor/managePage' });
    fireEvent.click(await screen.findByTestId('fence-delete'));
    expect(calls('/api/v1/geofences/f1', 'DELETE')).toHaveLength(0);
    await screen.findByText(/确定删除围栏“深圳仓”吗/);
    const buttons = screen.getAllByRole('button', { name: /^删\s?除$/ });
    fireEvent.click(buttons[buttons.length - 1]); // the confirmation's own button
    await waitFor(() => expect(calls('/api/v1/geofences/f1', 'DELETE')).toHaveLength(1));
  });
});

describe('new fence (addFence)', () => {
  it('says in Chinese what is missing and sends nothing', async () => {
    renderWithProviders(<FenceEditPage />, { route: '/carManagement/assetsMonitor/addFence' });
    fireEvent.click(await screen.findByTestId('fence-save'));
    await screen.findByText('请输入围栏名称');
    await screen.findByText('请选择所属组织');
    fireEvent.change(screen.getByTestId('fence-name'), { target: { value: '深圳仓' } });
    fireEvent.click(screen.getByTestId('fence-save'));
    expect(await screen.findByTestId('fence-geometry-error')).toHaveTextContent('多边形至少需要 3 个顶点');
    expect(calls('/api/v1/geofences', 'POST')).toHaveLength(0);
  });
});

describe('crossings (crossRailPage)', () => {
  it('lists crossings with the stay as words and exports the same filters without paging', async () => {
    renderWithProviders(<CrossRailPage />, { route: '/carManagement/assetsMonitor/crossRailPage?directions=exit&from=2026-05-01%2000:00:00&to=2026-05-01%2023:59:59&page=2' });
    const row = (await screen.findByText('粤B12345')).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('离开');
    expect(row).toHaveTextContent('1 小时 2 分');
    const url = new URL(String(calls('/api/v1/geofence-crossings')[0][0]), 'http://x');
    expect(url.searchParams.get('from')).toMatch(/^2026-05-01T00:00:00[+-]\d\d:\d\d$/);
    fireEvent.click(screen.getByTestId('export-button'));
    await waitFor(() => expect(calls('/api/v1/geofence-crossings/export', 'POST')).toHaveLength(1));
    const exported = new URL(String(calls('/api/v1/geofence-crossings/export', 'POST')[0][0]), 'http://x');
    expect(exported.searchParams.getAll('directions')).toEqual(['exit']);
    expect(exported.searchParams.has('page')).toBe(false);
  });
});
