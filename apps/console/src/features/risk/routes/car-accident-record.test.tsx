import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CarAccidentRecordPage from './car-accident-record';

vi.mock('@/components/map/map-view', () => ({
  MapView: ({ children }: { children?: ReactNode }) => <div data-testid="map">{children}</div>,
  useMapApi: () => null,
}));

const PATH = '/carManagement/riskControll/carAccidentRecord';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = { id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:accident' }], flags: {} };

const accident = (id: string, plateNumber: string, over: Record<string, unknown> = {}) => ({
  id,
  caseNo: `SG2026112${id}`,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: `v-${id}`,
  plateNumber,
  vin: 'LGXCE4CB6R0046600',
  driverId: 'd1',
  driverName: '张三',
  accidentTime: '2026-11-20T02:30:00Z',
  address: '深圳市南山区科技园',
  area: null,
  point: { lat: 22.54, lng: 113.95 },
  description: '追尾',
  severity: 'MINOR_INJURY',
  liability: 'MAIN',
  injuredCount: 1,
  fatalityCount: 0,
  estimatedLossFen: 1234567,
  assessedLossFen: 0,
  fixedLossCode: '',
  insurancePolicyId: '',
  claimNo: '',
  claimPaidFen: 0,
  repairOrderId: '',
  status: 'REPORTED',
  images: [],
  documents: [],
  closeTime: '',
  remark: '',
  createdBy: '演示管理员',
  createTime: '2026-11-20T03:00:00Z',
  updatedBy: '',
  updateTime: '',
  ...over,
});

const rows = [accident('a1', '粤B11111'), accident('a2', '粤B22222', { driverId: '', driverName: '', address: '', severity: 'PROPERTY_ONLY', liability: 'UNDETERMINED', status: 'CLOSED' })];

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/risk/accidents?')) return ok({ list: rows, total: rows.length });
    if (url === '/api/v1/risk/accidents' && init?.method === 'POST') return ok(rows[0]);
    if (url === '/api/v1/risk/accidents/a1') return ok({ accident: rows[0], logs: [{ remark: '事故状态：已报案 → 定损中', operName: '李四', operTime: '2026-11-21T01:00:00Z' }] });
    if (url.startsWith('/api/v1/pickers/vehicles')) return ok([{ id: 'v9', plateNumber: '粤B99999', vin: 'LVVDB11B0RD000009' }]);
    if (url.startsWith('/api/v1/pickers/drivers')) return ok([]);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const posts = () => fetchMock.mock.calls.filter(([url, init]) => url === '/api/v1/risk/accidents' && (init as RequestInit | undefined)?.method === 'POST');
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const accidentForm = () =>
  waitFor(() => {
    const found = screen.getAllByRole('dialog').find((d) => d.querySelector('form#accident'));
    if (!found) throw new Error('no accident form yet');
    return found;
  });

function pickDate(input: HTMLElement, value: string) {
  fireEvent.mouseDown(input);
  fireEvent.focus(input);
  fireEvent.change(input, { target: { value } });
  fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
}

describe('accident records (carAccidentRecord)', () => {
  it('lists the accidents with their labels, loss in yuan and -- for blanks', async () => {
    renderWithProviders(<CarAccidentRecordPage />, { route: PATH });
    const first = await rowOf('粤B11111');
    expect(first).toHaveTextContent('SG2026112a1');
    expect(first).toHaveTextContent('轻伤');
    expect(first).toHaveTextContent('主责');
    expect(first).toHaveTextContent('12,345.67');
    expect(first).toHaveTextContent('已报案');
    const second = await rowOf('粤B22222');
    expect(second).toHaveTextContent('已结案');
    expect(second).toHaveTextContent('待认定');
    expect(second).toHaveTextContent('--');
    // A closed accident is final.
    expect(within(second).getByTestId('accident-edit')).toBeDisabled();
  });

  it('refuses an accident without vehicle, time and severity', async () => {
    renderWithProviders(<CarAccidentRecordPage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('accident-add'));
    const form = await accidentForm();
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('请选择车辆')).toBeInTheDocument();
    expect(within(form).getByText('请选择事故时间')).toBeInTheDocument();
    expect(within(form).getByText('请选择事故等级')).toBeInTheDocument();
    expect(posts()).toHaveLength(0);
  });

  it('records an accident with the loss typed in yuan and sent in fen', async () => {
    renderWithProviders(<CarAccidentRecordPage />, { route: PATH });
    fireEvent.click(await screen.findByTestId('accident-add'));
    const form = await accidentForm();
    fireEvent.mouseDown(within(form).getByRole('combobox', { name: '车辆' }));
    fireEvent.click(await screen.findByTitle('粤B99999'));
    pickDate(within(form).getByLabelText('事故时间'), '2026-11-20 10:30:00');
    fireEvent.mouseDown(within(form).getByRole('combobox', { name: '事故等级' }));
    fireEvent.click(await screen.findByTitle('重伤'));
    fireEvent.change(within(form).getByLabelText('事故地点'), { target: { value: '  南山区科技园  ' } });
    fireEvent.change(within(form).getByLabelText('预估损失金额'), { target: { value: '1234.56' } });
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(posts()).toHaveLength(1));
    const body = JSON.parse(String((posts()[0][1] as RequestInit).body)) as Record<string, unknown>;
    expect(body).toMatchObject({
      vehicleId: 'v9',
      driverId: '',
      accidentTime: '2026-11-20 10:30:00',
      address: '南山区科技园',
      severity: 'SERIOUS_INJURY',
      liability: 'UNDETERMINED',
      estimatedLossFen: 123456,
      assessedLossFen: 0,
      injuredCount: 0,
      images: [],
      documents: [],
      point: null,
      status: null,
    });
  });

  it('shows an accident’s detail with - for blanks and its operation log', async () => {
    renderWithProviders(<CarAccidentRecordPage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B11111')).getByTestId('accident-view'));
    const detail = await screen.findByTestId('accident-detail');
    expect(detail).toHaveTextContent('张三');
    expect(detail).toHaveTextContent('113.950000, 22.540000');
    const log = within(detail).getByTestId('operation-log');
    expect(await within(log).findByText('事故状态：已报案 → 定损中')).toBeInTheDocument();
    expect(log).toHaveTextContent('李四');
    // The unset claim number shows '-'.
    const claim = within(detail).getByText('理赔编号').closest('.ant-form-item') as HTMLElement;
    expect(claim).toHaveTextContent(/理赔编号\s*-$/);
  });
});
