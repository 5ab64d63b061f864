import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import WarnRecordPage from './warn-record';

const PATH = '/carManagement/riskControll/warnRecord';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = { id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:risk:warn' }], flags: {} };

const warning = (id: string, plateNumber: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  vehicleId: `v-${id}`,
  plateNumber,
  driverId: 'd1',
  driverName: '张三',
  warningType: 'LICENCE_EXPIRING',
  level: 'MEDIUM',
  title: '驾驶证即将到期',
  content: '张三的驾驶证将于 2026-12-10 到期',
  warnTime: '2026-11-20T00:00:00Z',
  status: 'UNREAD',
  acknowledgedBy: '',
  acknowledgeTime: '',
  ...over,
});

const rows = [
  warning('w1', '粤B11111'),
  warning('w2', '粤B22222', { warningType: 'PAYMENT_OVERDUE', level: 'HIGH', driverName: '' }),
  warning('w3', '粤B33333', { warningType: 'ID_CARD_EXPIRING', status: 'ACKNOWLEDGED', acknowledgedBy: '李四', acknowledgeTime: '2026-11-21T01:00:00Z' }),
];

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/risk/warnings?')) return ok({ list: rows, total: rows.length });
    if (url === '/api/v1/risk/warnings/acknowledge' && init?.method === 'POST') return ok([]);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const calls = (match: (url: string, init?: RequestInit) => boolean) =>
  fetchMock.mock.calls.filter(([url, init]) => match(String(url), init as RequestInit | undefined)).map(([url, init]) => ({ url: new URL(String(url), 'http://x'), init: init as RequestInit }));
const listCalls = () => calls((u) => u.startsWith('/api/v1/risk/warnings?'));
const acks = () => calls((u, init) => u === '/api/v1/risk/warnings/acknowledge' && init?.method === 'POST');
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const confirm = () => fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: '提 交' }));

describe('warning records (warnRecord)', () => {
  it('opens on the unread warnings and shows each with its labels', async () => {
    renderWithProviders(<WarnRecordPage />, { route: PATH });
    const first = await rowOf('粤B11111');
    expect(first).toHaveTextContent('驾驶证到期');
    expect(first).toHaveTextContent('二级');
    expect(first).toHaveTextContent('未确认');
    const second = await rowOf('粤B22222');
    expect(second).toHaveTextContent('租金逾期');
    expect(within(second).getByText('三级').closest('.ant-tag')?.className).toContain('red');
    expect(second).toHaveTextContent('--');
    const third = await rowOf('粤B33333');
    expect(third).toHaveTextContent('身份证到期');
    expect(third).toHaveTextContent('李四');
    expect(within(third).queryByTestId('warn-acknowledge')).not.toBeInTheDocument();
    expect(listCalls()[0].url.searchParams.getAll('statuses')).toEqual(['UNREAD']);
  });

  it('filters by type and level from the URL', async () => {
    renderWithProviders(<WarnRecordPage />, { route: `${PATH}?warningTypes=PAYMENT_OVERDUE&warningTypes=BOGUS&levels=HIGH&statuses=ACKNOWLEDGED` });
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(0));
    const { searchParams } = listCalls()[0].url;
    expect(searchParams.getAll('warningTypes')).toEqual(['PAYMENT_OVERDUE']);
    expect(searchParams.getAll('levels')).toEqual(['HIGH']);
    expect(searchParams.getAll('statuses')).toEqual(['ACKNOWLEDGED']);
  });

  it('acknowledges the selected warnings in one batch', async () => {
    renderWithProviders(<WarnRecordPage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('warn-batch'));
    expect(await screen.findByText('请先选择预警记录')).toBeInTheDocument();
    expect(acks()).toHaveLength(0);

    fireEvent.click(within(await rowOf('粤B11111')).getByRole('checkbox'));
    fireEvent.click(within(await rowOf('粤B22222')).getByRole('checkbox'));
    // An acknowledged warning cannot be picked.
    expect(within(await rowOf('粤B33333')).getByRole('checkbox')).toBeDisabled();
    fireEvent.click(screen.getByTestId('warn-batch'));
    expect(await within(screen.getByRole('dialog')).findByText('确认选中的 2 条预警吗？')).toBeInTheDocument();
    confirm();
    await waitFor(() => expect(acks()).toHaveLength(1));
    expect(JSON.parse(String(acks()[0].init.body))).toEqual({ warningIds: ['w1', 'w2'] });
  });

  it('acknowledges one warning from its row', async () => {
    renderWithProviders(<WarnRecordPage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B22222')).getByTestId('warn-acknowledge'));
    expect(await within(screen.getByRole('dialog')).findByText('确认选中的 1 条预警吗？')).toBeInTheDocument();
    confirm();
    await waitFor(() => expect(acks()).toHaveLength(1));
    expect(JSON.parse(String(acks()[0].init.body))).toEqual({ warningIds: ['w2'] });
  });
});
