import { screen } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import LockAndUnlockCarPage from './lock-and-unlock-car';
import LockCarManagementPage from './lock-car-management';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const command = (state: string) => ({ id: 'c1', vehicleId: 'v1', plateNumber: '粤B12345', action: 'lock', reason: '逾期未还款', state, failureReason: '', operatorName: '演示', createdAt: '2026-05-01T10:00:00+08:00', updatedAt: '2026-05-01T10:00:05+08:00' });
const vehicle = {
  vehicleId: 'v1',
  plateNumber: '粤B12345',
  vin: 'LGXCE4CB6R0046600',
  orgName: '华南大区',
  usageType: 'RENT_TO_OWN',
  overdueInstalments: 2,
  overdueAmountFen: 356000,
  lockState: 'unlocked',
  online: true,
  speedKmh: 0,
  charging: false,
  lastFixTime: '2026-05-01T10:00:00+08:00',
  lastCommand: null,
};

let fetchMock: ReturnType<typeof vi.fn>;
let commandStates: string[];
beforeEach(() => {
  commandStates = ['sent', 'succeeded'];
  fetchMock = vi.fn((url: string) => {
    if (url.startsWith('/api/v1/lock/vehicles')) return ok({ list: [vehicle], total: 1 });
    if (url.startsWith('/api/v1/lock/commands')) return ok({ list: [command(commandStates.length > 1 ? (commandStates.shift() as string) : commandStates[0])], total: 1 });
    if (url === '/api/v1/orgs/simple') return ok([]);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const calls = (prefix: string) => fetchMock.mock.calls.map(([u]) => String(u)).filter((u) => u.startsWith(prefix));

describe('lock management (lockCarManagement)', () => {
  it('asks for the filters in the URL and shows overdue money in yuan, the lock state and usage as words', async () => {
    renderWithProviders(<LockCarManagementPage />, { route: '/carManagement/assetsMonitor/lockCarManagement?overdueOnly=true&usageTypes=RENT_TO_OWN&plateNumbers=粤B12345' });
    const row = (await screen.findByText('LGXCE4CB6R0046600')).closest('tr') as HTMLElement;
    const url = new URL(calls('/api/v1/lock/vehicles')[0], 'http://x');
    expect(url.searchParams.get('overdueOnly')).toBe('true');
    expect(url.searchParams.getAll('usageTypes')).toEqual(['RENT_TO_OWN']);
    expect(url.searchParams.getAll('plateNumbers')).toEqual(['粤B12345']);
    for (const text of ['以租代购', '3560.00', '未锁车', '在线']) expect(row).toHaveTextContent(text);
  });
});

describe('lock and unlock (lockAndUnlockCar)', () => {
  it("polls the vehicle's commands until each reaches a terminal state", async () => {
    renderWithProviders(<LockAndUnlockCarPage />, { route: '/carManagement/assetsMonitor/lockAndUnlockCar?vehicleId=v1&plate=粤B12345' });
    await screen.findByText('锁车 · 已下发');
    await screen.findByText('锁车 · 成功', undefined, { timeout: 5000 });
    const first = new URL(calls('/api/v1/lock/commands')[0], 'http://x');
    expect(first.searchParams.get('vehicleId')).toBe('v1');
    const count = calls('/api/v1/lock/commands').length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(calls('/api/v1/lock/commands').length).toBe(count);
  });
});
