import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CustomerServiceRecordPage from './customer-service-record';

const PATH = '/carManagement/riskControll/customerServiceRecord';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = { id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:risk:service' }], flags: {} };

const record = (id: string, plateNumber: string, over: Record<string, unknown> = {}) => ({
  id,
  ticketNo: `KF${id}`,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: `v-${id}`,
  plateNumber,
  driverId: '',
  driverName: '',
  callerName: '王五',
  callerMaskedPhone: '138****0000',
  channel: 'PHONE',
  category: 'ROADSIDE_ASSISTANCE',
  status: 'OPEN',
  summary: '车辆无法启动',
  resolution: '',
  agentName: '客服小李',
  startTime: '2026-11-20T02:00:00Z',
  durationSeconds: 185,
  closeTime: '',
  satisfaction: 0,
  alarmId: '',
  followUpTime: '',
  createTime: '2026-11-20T02:05:00Z',
  updateTime: '',
  ...over,
});

const rows = [record('r1', '粤B11111'), record('r2', '粤B22222', { callerName: '', status: 'CLOSED', category: 'COMPLAINT', durationSeconds: 0 })];

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/risk/service-records?')) return ok({ list: rows, total: rows.length });
    if (url.startsWith('/api/v1/risk/service-records') && init?.method) return ok(rows[0]);
    if (url.startsWith('/api/v1/pickers/vehicles')) return ok([{ id: 'v9', plateNumber: '粤B99999', vin: 'LVVDB11B0RD000009' }]);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const writes = () => fetchMock.mock.calls.filter(([url, init]) => String(url).startsWith('/api/v1/risk/service-records') && ['POST', 'PUT'].includes(String((init as RequestInit | undefined)?.method)));
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const recordForm = () =>
  waitFor(() => {
    const found = screen.getAllByRole('dialog').find((d) => d.querySelector('form#service-record'));
    if (!found) throw new Error('no record form yet');
    return found;
  });

describe('customer-service records (customerServiceRecord)', () => {
  it('lists the records with their labels and -- for blanks', async () => {
    renderWithProviders(<CustomerServiceRecordPage />, { route: PATH });
    const first = await rowOf('粤B11111');
    expect(first).toHaveTextContent('KFr1');
    expect(first).toHaveTextContent('138****0000');
    expect(first).toHaveTextContent('电话');
    expect(first).toHaveTextContent('道路救援');
    expect(first).toHaveTextContent('3分5秒');
    expect(first).toHaveTextContent('待处理');
    const second = await rowOf('粤B22222');
    expect(second).toHaveTextContent('投诉');
    expect(second).toHaveTextContent('--');
    expect(within(second).getByTestId('service-edit')).toBeDisabled();
  });

  it('refuses a record without vehicle, category and issue, and a malformed phone', async () => {
    renderWithProviders(<CustomerServiceRecordPage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('service-add'));
    const form = await recordForm();
    fireEvent.change(within(form).getByLabelText('联系电话'), { target: { value: '12ab' } });
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('请选择车辆')).toBeInTheDocument();
    expect(within(form).getByText('请选择服务类型')).toBeInTheDocument();
    expect(within(form).getByText('请输入问题描述')).toBeInTheDocument();
    expect(within(form).getByText('联系电话格式不正确')).toBeInTheDocument();
    expect(writes()).toHaveLength(0);
  });

  it('records a contact by hand with its defaults', async () => {
    renderWithProviders(<CustomerServiceRecordPage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('service-add'));
    const form = await recordForm();
    fireEvent.mouseDown(within(form).getByRole('combobox', { name: '车辆' }));
    fireEvent.click(await screen.findByTitle('粤B99999'));
    fireEvent.mouseDown(within(form).getByRole('combobox', { name: '服务类型' }));
    fireEvent.click(await screen.findByTitle('故障报修'));
    fireEvent.change(within(form).getByLabelText('问题描述'), { target: { value: '  仪表盘报警  ' } });
    fireEvent.change(within(form).getByLabelText('联系电话'), { target: { value: '13800000000' } });
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(writes()).toHaveLength(1));
    const [url, init] = writes()[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/risk/service-records');
    expect(init.method).toBe('POST');
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    expect(body).toMatchObject({ vehicleId: 'v9', category: 'FAULT_REPORT', channel: 'PHONE', status: 'OPEN', summary: '仪表盘报警', callerPhone: '13800000000', satisfaction: 0, followUpTime: '', alarmId: '' });
    expect(body.startTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00$/);
  });

  it('edits a record with PUT, the masked phone only as a hint', async () => {
    renderWithProviders(<CustomerServiceRecordPage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B11111')).getByTestId('service-edit'));
    const form = await recordForm();
    expect(within(form).getByLabelText('联系电话')).toHaveAttribute('placeholder', '138****0000');
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(writes()).toHaveLength(1));
    const [url, init] = writes()[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/risk/service-records/r1');
    expect(init.method).toBe('PUT');
    expect(JSON.parse(String(init.body))).toMatchObject({ vehicleId: 'v-r1', summary: '车辆无法启动', callerPhone: '', startTime: expect.stringMatching(/^2026-11-20 /) as unknown });
  });
});
