import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CarMaintenancePage from './car-maintenance';

const PATH = '/carManagement/vehicleManagement/carMaintenance';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = { id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:maintain:remind' }], flags: {} };

const reminder = (id: string, plateNumber: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: `v-${id}`,
  plateNumber,
  vin: 'LGXCE4CB6R0046600',
  planId: 'p1',
  planName: '常规保养',
  kind: 'ROUTINE_SERVICE',
  status: 'OVERDUE',
  dueByMileage: true,
  intervalM: 10_000_000,
  intervalMonths: 6,
  soonM: 1_000_000,
  soonDays: 15,
  lastServiceTime: '2026-05-01T02:00:00Z',
  lastServiceOdometerM: 40_000_000,
  dueTime: '2026-10-31T16:00:00Z',
  dueOdometerM: 50_000_000,
  currentOdometerM: 50_200_000,
  dailyMileageM: 120_000,
  forecastDueTime: '2026-11-28T16:00:00Z',
  remainingDays: -1,
  remainingM: -200_000,
  recordId: '',
  repairOrderId: '',
  createTime: '2026-05-01T02:00:00Z',
  updateTime: '',
  ...over,
});

const rows = [
  reminder('r1', '粤B11111'),
  reminder('r2', '粤B22222', { status: 'UPCOMING', dueByMileage: false, currentOdometerM: 0, dailyMileageM: 0, remainingM: 0 }),
  reminder('r3', '粤B33333', { status: 'DUE', currentOdometerM: 50_000_000, remainingM: 0 }),
];
const plan = {
  id: 'p1',
  orgId: 'o1',
  orgName: '华南大区',
  name: '常规保养',
  kind: 'ROUTINE_SERVICE',
  vehicleModel: '',
  intervalM: 10_000_000,
  intervalMonths: 6,
  soonM: 1_000_000,
  soonDays: 15,
  items: ['更换齿轮油', '检查轮胎'],
  remark: '',
  vehicleCount: 3,
  createdBy: '',
  createTime: '',
  updatedBy: '',
  updateTime: '',
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/maintenance/reminders?')) return ok({ list: rows, total: rows.length });
    if (url.startsWith('/api/v1/maintenance/plans?')) return ok({ list: [plan], total: 1 });
    if (url === '/api/v1/maintenance/reminders/r1/complete' && init?.method === 'POST')
      return ok({ completed: { ...rows[0], status: 'DONE' }, next: reminder('r9', '粤B11111', { status: 'OK', dueOdometerM: 60_000_000, dueTime: '2027-04-30T16:00:00Z' }) });
    if (url === '/api/v1/maintenance/reminders/r1')
      return ok({
        reminder: rows[0],
        records: [
          {
            id: 's1',
            reminderId: 'r0',
            planId: 'p1',
            planName: '常规保养',
            vehicleId: 'v-r1',
            plateNumber: '粤B11111',
            serviceTime: '2026-05-01T02:00:00Z',
            serviceOdometerM: 40_000_000,
            supplier: '途虎养车工场店',
            costFen: 68_000,
            items: ['更换齿轮油'],
            remark: '',
            schedule: 'RESET',
            repairOrderId: '',
            operatorName: '李四',
            createTime: '2026-05-01T02:00:00Z',
          },
        ],
      });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const completions = () => fetchMock.mock.calls.filter(([url]) => String(url).endsWith('/complete'));
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const completeForm = () =>
  waitFor(() => {
    const found = screen.getAllByRole('dialog').find((d) => d.querySelector('form#maintenance-complete'));
    if (!found) throw new Error('no complete form yet');
    return found;
  });

describe('maintenance reminders (carMaintenance)', () => {
  it('lists the reminders with their due state, what fired it and the distances in km, 20 a page', async () => {
    renderWithProviders(<CarMaintenancePage />, { route: PATH });
    const first = await rowOf('粤B11111');
    expect(first).toHaveTextContent('已逾期');
    expect(first).toHaveTextContent('按里程');
    expect(first).toHaveTextContent('50,200');
    expect(first).toHaveTextContent('-200');
    expect(await rowOf('粤B33333')).toHaveTextContent('已到期');
    const second = await rowOf('粤B22222');
    expect(second).toHaveTextContent('即将到期');
    expect(second).toHaveTextContent('按时间');
    // No odometer from telemetry: the distances show --.
    expect(second).toHaveTextContent('--');
    const listed = fetchMock.mock.calls.map(([url]) => String(url)).find((u) => u.startsWith('/api/v1/maintenance/reminders?'));
    expect(listed).toContain('page=1');
    expect(listed).toContain('size=20');
  });

  it('completes a reminder keeping the schedule, the odometer typed in km and sent in metres', async () => {
    renderWithProviders(<CarMaintenancePage />, { route: PATH });
    // The plans (and so the plan's items) are loaded before the dialog opens.
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => String(url).startsWith('/api/v1/maintenance/plans?'))).toBe(true));
    fireEvent.click(within(await rowOf('粤B11111')).getByTestId('reminder-complete'));
    const form = await completeForm();
    const odometer = within(form).getByLabelText('保养里程');
    expect(odometer).toHaveValue('50200.0');
    fireEvent.change(odometer, { target: { value: '50210.5' } });
    fireEvent.change(within(form).getByLabelText('保养单位'), { target: { value: '  途虎养车工场店 ' } });
    fireEvent.change(within(form).getByLabelText('保养费用'), { target: { value: '680' } });
    expect(within(form).getByLabelText('按原计划（上次到期 + 间隔）')).toBeChecked();
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(completions()).toHaveLength(1));
    const body = JSON.parse(String((completions()[0][1] as RequestInit).body)) as Record<string, unknown>;
    expect(body).toMatchObject({ serviceOdometerM: 50_210_500, supplier: '途虎养车工场店', costFen: 68_000, schedule: 'KEEP', items: ['更换齿轮油', '检查轮胎'] });
    expect(String(body.serviceTime)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('sends RESET when the user chooses to count from this service', async () => {
    renderWithProviders(<CarMaintenancePage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B11111')).getByTestId('reminder-complete'));
    const form = await completeForm();
    fireEvent.click(within(form).getByLabelText('从本次保养重新计算'));
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(completions()).toHaveLength(1));
    expect(JSON.parse(String((completions()[0][1] as RequestInit).body))).toMatchObject({ schedule: 'RESET' });
  });

  it('shows the service history in the detail', async () => {
    renderWithProviders(<CarMaintenancePage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B11111')).getByTestId('reminder-view'));
    const detail = await screen.findByTestId('maintenance-detail');
    const history = within(detail).getByTestId('maintenance-history');
    expect(history).toHaveTextContent('途虎养车工场店');
    expect(history).toHaveTextContent('680.00');
    expect(history).toHaveTextContent('40,000');
    expect(history).toHaveTextContent('从本次保养重新计算');
  });

  it('lists the plans with their interval and window', async () => {
    renderWithProviders(<CarMaintenancePage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('plans-open'));
    const plans = await screen.findByTestId('plan-list');
    expect(await within(plans).findByText('常规保养')).toBeInTheDocument();
    expect(plans).toHaveTextContent('10,000 公里 / 6 个月');
    expect(plans).toHaveTextContent('1,000 公里 / 15 天');
    expect(plans).toHaveTextContent('全部车型');
  });
});
