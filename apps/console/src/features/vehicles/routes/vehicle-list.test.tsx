import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import VehicleListPage from './vehicle-list';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const vehicle = {
  id: 'v1',
  plateNumber: '粤BD12345',
  vin: 'LGXCE4CB6R0046600',
  brand: '比亚迪',
  model: 'T5',
  energyType: 'BATTERY_ELECTRIC',
  batteryCapacityWh: 50300,
  orgName: '华南大区',
  driverName: '',
  terminalId: '',
  usageKind: 'RENT',
  usageStatus: 'ACTIVE',
  leaseStartTime: '2026-01-01',
  leaseEndTime: '2027-01-01',
  registerTime: '2025-12-20',
  status: 'IN_SERVICE',
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url.startsWith('/api/v1/vehicles')) return ok({ list: [vehicle], total: 1 });
    if (url === '/api/v1/orgs/simple') return ok([{ orgId: 'o1', parentId: '', name: '演示物流', orgCode: 'r', level: 1 }]);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const listCalls = () => fetchMock.mock.calls.map(([url]) => String(url)).filter((u) => u.startsWith('/api/v1/vehicles'));

describe('vehicle list (carFiles)', () => {
  it('asks for the list the URL describes: repeated plate keys, codes and dates', async () => {
    renderWithProviders(<VehicleListPage />, { route: '/carManagement/assetsData/carFiles?plate=粤BD12345&plate=粤B00000&status=IN_SERVICE&registerTimeStart=2025-01-01%2000:00:00&registerTimeEnd=2025-12-31%2023:59:59&page=2&size=50' });
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(0));
    const url = new URL(listCalls()[0], 'http://x');
    expect(url.searchParams.getAll('plate')).toEqual(['粤BD12345', '粤B00000']);
    expect(url.searchParams.getAll('status')).toEqual(['IN_SERVICE']);
    expect(url.searchParams.get('registerTimeStart')).toBe('2025-01-01 00:00:00');
    expect(url.searchParams.get('page')).toBe('2');
    expect(url.searchParams.get('size')).toBe('50');
  });

  it('shows each vehicle with its codes as words, kWh and blanks as --', async () => {
    renderWithProviders(<VehicleListPage />, { route: '/carManagement/assetsData/carFiles' });
    const row = (await screen.findByText('粤BD12345')).closest('tr') as HTMLElement;
    for (const text of ['纯电动', '50.3', '华南大区', '租赁', '使用中', '运营中', '比亚迪 / T5', '2027-01-01']) expect(row).toHaveTextContent(text);
    expect(row.textContent).toContain('--');
  });
});

describe('vehicle list export', () => {
  it('exports the filters the list shows, without its paging, and says where the file will be', async () => {
    renderWithProviders(<VehicleListPage />, { route: '/carManagement/assetsData/carFiles?plate=粤BD12345&status=IN_SERVICE&page=3&size=50' });
    await screen.findByText('粤BD12345');
    fetchMock.mockImplementationOnce(() => ok({ id: 'r1', status: 1 }));
    (await screen.findByTestId('export-button')).click();
    await waitFor(() => expect(listCalls().some((u) => u.startsWith('/api/v1/vehicles/export'))).toBe(true));
    const url = new URL(listCalls().find((u) => u.startsWith('/api/v1/vehicles/export')) as string, 'http://x');
    expect(url.searchParams.getAll('plate')).toEqual(['粤BD12345']);
    expect(url.searchParams.getAll('status')).toEqual(['IN_SERVICE']);
    expect(url.searchParams.has('page')).toBe(false);
    expect(url.searchParams.has('size')).toBe(false);
    await screen.findByText('导出结果请到右上方个人信息下【导出记录】中查看下载结果');
  });
});
