import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App as AntApp, ConfigProvider } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import { MessageBridge } from '@/components/message-bridge';
import { i18n } from '@/lib/i18n';
import * as notify from '@/lib/notify';
import type { UsageKind } from '../components/vehicle-labels';
import UsageRecordsPage from './usage-records';

const PATH = '/carManagement/assetsData/carUsedRecord/carRentRecord';
const envelope = (code: number, data: unknown, msg = 'ok') => Promise.resolve(new Response(JSON.stringify({ code, msg, data })));
const ok = (data: unknown) => envelope(200, data);

const rental = {
  id: 'r1',
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: 'v1',
  plateNumber: '粤BD12345',
  vin: 'LGXCE4CB6R0046600',
  kind: 'RENT',
  status: 'ACTIVE',
  contractNo: 'HT-2026-001',
  counterparty: '',
  startTime: '2026-01-01T04:00:00Z',
  endTime: '2027-01-01T04:00:00Z',
  rent: { monthlyRentFen: 350000, depositFen: 700000, termMonths: 12, paymentDay: 5, returnTime: '' },
  purchase: null,
  replacement: null,
  rentToOwn: null,
  attachments: [],
  remark: '',
  createTime: '2026-01-01T02:00:00Z',
  updateTime: '2026-01-01T02:00:00Z',
};
const ended = { ...rental, id: 'r2', plateNumber: '粤B00001', status: 'ENDED' };

let fetchMock: ReturnType<typeof vi.fn>;
let answerCreate: () => Promise<Response>;
let answerEnd: () => Promise<Response>;
beforeEach(() => {
  answerCreate = () => ok(rental);
  answerEnd = () => ok({ ...rental, status: 'ENDED' });
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:sys:car:used' }], flags: {} });
    if (url === '/api/v1/orgs/simple') return ok([{ orgId: 'o1', parentId: '', name: '华南大区', orgCode: 'r', level: 1 }]);
    if (url.startsWith('/api/v1/pickers/vehicles')) return ok([{ id: 'v7', plateNumber: '粤B77777', vin: 'LVVDB11B0RD000007' }]);
    if (url === '/api/v1/usage-records/r1/end') return answerEnd();
    if (url === '/api/v1/usage-records' && init?.method === 'POST') return answerCreate();
    if (url === '/api/v1/usage-records/r1') return ok(rental);
    if (url.startsWith('/api/v1/usage-records')) return ok({ list: [rental, ended], total: 2 });
    if (url.startsWith('/api/v1/operation-logs')) return ok({ list: [{ remark: '月租金：由「3,000.00」改为「3,500.00」', operName: '演示管理员', operTime: '2026-01-03T02:00:00Z' }], total: 1, totalNum: 1 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function mount(entry = PATH, kind: UsageKind = 'RENT') {
  const router = createMemoryRouter([{ path: PATH, element: <UsageRecordsPage kind={kind} /> }], { initialEntries: [entry] });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <I18nextProvider i18n={i18n}>
      <ConfigProvider locale={zhCN} theme={{ token: { motion: false } }}>
        <AntApp>
          <MessageBridge />
          <QueryClientProvider client={client}>
            <RouterProvider router={router} />
          </QueryClientProvider>
        </AntApp>
      </ConfigProvider>
    </I18nextProvider>,
  );
  return { search: () => new URLSearchParams(router.state.location.search) };
}

const calls = (match: (url: string, init?: RequestInit) => boolean) =>
  fetchMock.mock.calls.filter(([url, init]) => match(String(url), init as RequestInit | undefined)).map(([url, init]) => ({ url: new URL(String(url), 'http://x'), init: init as RequestInit }));
const listCalls = () => calls((u, init) => u.startsWith('/api/v1/usage-records?') && init?.method === 'GET');
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const writes = () => calls((_, init) => init?.method === 'POST' || init?.method === 'PUT');

/** Types a date into an antd date picker and confirms it. */
function pickDate(input: HTMLElement, value: string) {
  fireEvent.mouseDown(input);
  fireEvent.focus(input);
  fireEvent.change(input, { target: { value } });
  fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
}

describe('usage records (carUsedRecord sub-pages)', () => {
  it('asks for its own kind with the filters the URL holds: batch plates and VINs, states, contract and period', async () => {
    mount(`${PATH}?plate=粤BD12345&vin=LGXCE4CB6R0046600&status=ACTIVE&status=PENDING&contractNo=HT&periodStart=2026-01-01%2000:00:00&periodEnd=2026-06-30%2023:59:59&size=10`);
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(0));
    const { searchParams } = listCalls()[0].url;
    expect(searchParams.get('kind')).toBe('RENT');
    expect(searchParams.getAll('plate')).toEqual(['粤BD12345']);
    expect(searchParams.getAll('vin')).toEqual(['LGXCE4CB6R0046600']);
    expect(searchParams.getAll('status')).toEqual(['ACTIVE', 'PENDING']);
    expect(searchParams.get('contractNo')).toBe('HT');
    expect(searchParams.get('periodEnd')).toBe('2026-06-30 23:59:59');
    expect(searchParams.get('size')).toBe('10');
  });

  it('writes a contract search into the URL', async () => {
    const { search } = mount();
    await rowOf('粤BD12345');
    const bar = screen.getByTestId('filter-bar');
    await userEvent.type(within(bar).getByLabelText('合同编号'), 'HT-2026');
    await userEvent.click(within(bar).getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(search().get('contractNo')).toBe('HT-2026'));
    await waitFor(() => expect(listCalls().some((c) => c.url.searchParams.get('contractNo') === 'HT-2026' && c.url.searchParams.get('kind') === 'RENT')).toBe(true));
  });

  it('shows rent terms in yuan, blanks as --, and offers edit and end only while a record is open', async () => {
    mount();
    const open = await rowOf('粤BD12345');
    for (const text of ['HT-2026-001', '3,500.00', '7,000.00', '12', '2026-01-01', '2027-01-01', '使用中', '华南大区']) expect(open).toHaveTextContent(text);
    expect(open.textContent).toContain('--');
    expect(within(open).getByTestId('usage-end')).toBeInTheDocument();
    const closed = await rowOf('粤B00001');
    expect(closed).toHaveTextContent('已结束');
    expect(within(closed).queryByTestId('usage-end')).not.toBeInTheDocument();
    expect(within(closed).queryByTestId('usage-edit')).not.toBeInTheDocument();
  });

  it('shows the purchase terms and no end date on the purchase page', async () => {
    const purchase = { ...rental, kind: 'PURCHASE', endTime: '', rent: null, purchase: { priceFen: 15800000, purchaseTaxFen: 0, invoiceNo: 'FP-1', deliveryTime: '' } };
    fetchMock.mockImplementation((url: string) => (url.startsWith('/api/v1/usage-records') ? ok({ list: [purchase], total: 1 }) : ok(null)));
    mount(PATH, 'PURCHASE');
    const tr = await rowOf('粤BD12345');
    for (const text of ['158,000.00', '0.00', 'FP-1']) expect(tr).toHaveTextContent(text);
    expect(screen.queryByRole('columnheader', { name: '结束日期' })).not.toBeInTheDocument();
    expect(listCalls()[0].url.searchParams.get('kind')).toBe('PURCHASE');
  });

  it('ends a record only after confirmation, then says so', async () => {
    mount();
    await userEvent.click(within(await rowOf('粤BD12345')).getByTestId('usage-end'));
    const dialog = await screen.findByTestId('usage-end-dialog');
    expect(dialog).toHaveTextContent('确定结束车辆 粤BD12345 的这条使用记录（合同编号 HT-2026-001）吗？');
    expect(calls((u) => u.endsWith('/end'))).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: '确定结束' }));
    await waitFor(() => expect(calls((u) => u === '/api/v1/usage-records/r1/end')).toHaveLength(1));
    expect(JSON.parse(String(calls((u) => u.endsWith('/end'))[0].init.body))).toEqual({ endTime: '', remark: '' });
    await waitFor(() => expect(notify.toastSuccess).toHaveBeenCalledWith('使用记录已结束'));
  });

  it('keeps the end dialog open with the server message when the record has already ended', async () => {
    answerEnd = () => envelope(4009, null, '该使用记录已结束');
    mount();
    await userEvent.click(within(await rowOf('粤BD12345')).getByTestId('usage-end'));
    await screen.findByTestId('usage-end-dialog');
    fireEvent.click(screen.getByRole('button', { name: '确定结束' }));
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('该使用记录已结束'));
    expect(screen.getByTestId('usage-end-dialog')).toBeInTheDocument();
  });

  it('adds with the service rules: vehicle, contract, dates, rent, term', async () => {
    mount();
    await rowOf('粤BD12345');
    await userEvent.click(screen.getByTestId('usage-add'));
    const form = await screen.findByTestId('usage-form');
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    for (const message of ['请选择车辆', '请输入合同编号', '请选择开始日期', '请选择结束日期', '请输入月租金', '租期(月)须在 1 到 120 之间']) {
      expect(await within(form).findByText(message, {}, { timeout: 5000 })).toBeInTheDocument();
    }
    expect(writes()).toHaveLength(0);
  });

  it('creates with an idempotency key and shows the one-open-record refusal (4009) under the vehicle', async () => {
    answerCreate = () => envelope(4009, null, '该车辆已有未结束的使用记录，请先结束后再新增');
    mount();
    await rowOf('粤BD12345');
    await userEvent.click(screen.getByTestId('usage-add'));
    const form = await screen.findByTestId('usage-form');
    const vehicle = within(form).getByRole('combobox', { name: '车辆' });
    fireEvent.mouseDown(vehicle);
    fireEvent.click(await screen.findByTitle('粤B77777'));
    fireEvent.change(within(form).getByLabelText('合同编号'), { target: { value: 'HT-9' } });
    pickDate(within(form).getByLabelText('开始日期'), '2026-02-01');
    pickDate(within(form).getByLabelText('结束日期'), '2027-02-01');
    fireEvent.change(within(form).getByLabelText('月租金(元)'), { target: { value: '3200.5' } });
    fireEvent.change(within(form).getByLabelText('租期(月)'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('该车辆已有未结束的使用记录，请先结束后再新增', { selector: '.ant-form-item-explain-error' }, { timeout: 5000 })).toBeInTheDocument();
    const [post] = calls((u, init) => u === '/api/v1/usage-records' && init?.method === 'POST');
    expect((post.init.headers as Record<string, string>)['Idempotency-Key']).toMatch(/\S{16,}/);
    expect(JSON.parse(String(post.init.body))).toMatchObject({
      vehicleId: 'v7', contractNo: 'HT-9', startTime: '2026-02-01', endTime: '2027-02-01',
      rent: { monthlyRentFen: 320050, depositFen: 0, termMonths: 12 }, purchase: null, replacement: null, rentToOwn: null,
    });
  });

  it('opens the detail with the record operation log', async () => {
    mount();
    await userEvent.click(await screen.findByText('粤BD12345'));
    const detail = await screen.findByTestId('usage-detail');
    expect(await within(detail).findByText('月租金：由「3,000.00」改为「3,500.00」')).toBeInTheDocument();
    const [log] = calls((u) => u.startsWith('/api/v1/operation-logs'));
    expect(log.url.searchParams.get('businessType')).toBe('USAGE_RECORD');
    expect(log.url.searchParams.get('businessId')).toBe('r1');
  });
});
