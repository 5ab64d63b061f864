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
import DriverManagementPage from './driver-management';

const PATH = '/carManagement/assetsData/driverManagement';
const envelope = (code: number, data: unknown, msg = 'ok') => Promise.resolve(new Response(JSON.stringify({ code, msg, data })));
const ok = (data: unknown) => envelope(200, data);
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });

const driver = {
  id: 'd1',
  orgId: 'o1',
  orgName: '华南大区',
  name: '张伟',
  phone: '138****5678',
  idNumber: '110***********002X',
  address: '广东省深圳市南*****',
  employeeNo: '',
  licenceClass: 'C1',
  licenceFirstIssueTime: '2015-06-01T04:00:00Z',
  licenceExpireTime: '2031-06-01T04:00:00Z',
  licenceFront: { name: 'front.jpg', key: '', contentType: 'image/jpeg', sizeBytes: 10 },
  licenceBack: null,
  idCardFront: null,
  idCardBack: null,
  idCardExpireTime: '2030-02-01T04:00:00Z',
  idCardLongTerm: false,
  status: 'ACTIVE',
  hireTime: '',
  boundVehicleId: '',
  boundPlateNumber: '',
  remark: '',
  createTime: '2026-01-02T02:00:00Z',
  updateTime: '2026-01-02T02:00:00Z',
};

let fetchMock: ReturnType<typeof vi.fn>;
let permissions: string[];
let answerPut: () => Promise<Response>;
beforeEach(() => {
  permissions = ['as:sys:driver', 'as:sensitive:view'];
  answerPut = () => ok(driver);
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(permissions));
    if (url === '/api/v1/orgs/simple') return ok([{ orgId: 'o1', parentId: '', name: '华南大区', orgCode: 'r', level: 1 }]);
    if (url === '/api/v1/drivers/d1/reveal') return ok({ value: '13812345678', needsConfirmation: false, logId: 'log-1' });
    if (url === '/api/v1/drivers/d1' && init?.method === 'PUT') return answerPut();
    if (url === '/api/v1/drivers/d1') return ok(driver);
    if (url.startsWith('/api/v1/drivers')) return ok({ list: [driver], total: 1 });
    if (url.startsWith('/api/v1/operation-logs')) return ok({ list: [{ remark: '司机姓名：由「张三」改为「张伟」', operName: '演示管理员', operTime: '2026-01-03T02:00:00Z' }], total: 1, totalNum: 1 });
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

function mount(entry = PATH) {
  const router = createMemoryRouter([{ path: PATH, element: <DriverManagementPage /> }], { initialEntries: [entry] });
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
const listCalls = () => calls((u, init) => u.startsWith('/api/v1/drivers?') && !init?.method?.match(/POST|PUT/));
const row = async () => (await screen.findByTestId('driver-name')).closest('tr') as HTMLElement;

describe('driver management (driverManagement)', () => {
  it('asks for the list the URL describes: bound plates, codes, vehicle flag, expiry range and paging', async () => {
    mount(`${PATH}?plate=粤B12345&plate=粤B00001&status=ACTIVE&licenceClass=C1&licenceClass=B2&hasVehicle=false&licenceExpireTimeStart=2026-01-01%2000:00:00&licenceExpireTimeEnd=2026-12-31%2023:59:59&page=2&size=50`);
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(0));
    const { searchParams } = listCalls()[0].url;
    expect(searchParams.getAll('plate')).toEqual(['粤B12345', '粤B00001']);
    expect(searchParams.getAll('licenceClass')).toEqual(['C1', 'B2']);
    expect(searchParams.get('status')).toBe('ACTIVE');
    expect(searchParams.get('hasVehicle')).toBe('false');
    expect(searchParams.get('licenceExpireTimeEnd')).toBe('2026-12-31 23:59:59');
    expect(searchParams.get('page')).toBe('2');
    expect(searchParams.get('size')).toBe('50');
  });

  it('writes a search into the URL and starts again at page 1', async () => {
    const { search } = mount(`${PATH}?page=3`);
    await row();
    const bar = screen.getByTestId('driver-list');
    await userEvent.type(within(bar).getByLabelText('姓名'), '张');
    await userEvent.click(within(bar).getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(search().get('name')).toBe('张'));
    expect(search().get('page')).toBeNull();
    await waitFor(() => expect(listCalls().some((c) => c.url.searchParams.get('name') === '张' && c.url.searchParams.get('page') === '1')).toBe(true));
  });

  it('refuses a partial phone in the filter bar without searching', async () => {
    const { search } = mount();
    await row();
    const before = listCalls().length;
    const bar = screen.getByTestId('driver-list');
    await userEvent.type(within(bar).getByLabelText('手机号'), '1381');
    await userEvent.click(within(bar).getByRole('button', { name: /查\s*询/ }));
    expect(await screen.findByText('请输入正确的手机号')).toBeInTheDocument();
    expect(search().get('phone')).toBeNull();
    expect(listCalls()).toHaveLength(before);
  });

  it('shows the server-masked phone and ID number, blanks as --, and reveals one value per click with the audit', async () => {
    mount();
    const tr = await row();
    for (const text of ['138****5678', '110***********002X', '华南大区', 'C1', '2031-06-01', '在职']) expect(tr).toHaveTextContent(text);
    expect(tr.textContent).toContain('--');
    const [phoneEye] = await within(tr).findAllByRole('button', { name: '显示' });
    await userEvent.click(phoneEye);
    expect(await within(tr).findByText('13812345678')).toBeInTheDocument();
    const reveals = calls((u) => u === '/api/v1/drivers/d1/reveal');
    expect(reveals).toHaveLength(1);
    expect(JSON.parse(String(reveals[0].init.body))).toEqual({ sensitiveType: 1, pageUrl: PATH, sourceModule: 'driver' });
  });

  it('shows only the masked values, with no eye, without as:sensitive:view', async () => {
    permissions = ['as:sys:driver'];
    mount();
    const tr = await row();
    await waitFor(() => expect(calls((u) => u === '/api/v1/me')).not.toHaveLength(0));
    expect(tr).toHaveTextContent('138****5678');
    expect(within(tr).queryByRole('button', { name: '显示' })).not.toBeInTheDocument();
  });

  it('adds with the service rules in Chinese and sends nothing while they fail', async () => {
    mount();
    await row();
    await userEvent.click(screen.getByTestId('driver-add'));
    const form = await screen.findByTestId('driver-form');
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    for (const message of ['请输入司机姓名', '请选择所属组织', '请输入身份证号', '请选择准驾车型', '请选择驾驶证有效期']) {
      expect(await within(form).findByText(message, {}, { timeout: 5000 })).toBeInTheDocument();
    }
    expect(within(form).getByText('请输入手机号', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    fireEvent.change(within(form).getByLabelText('身份证号'), { target: { value: '110105194912310021' } });
    fireEvent.blur(within(form).getByLabelText('身份证号'));
    // Validation answers after its debounce; a loaded machine needs more than the default second.
    expect(await within(form).findByText('身份证号校验位不正确，请核对', {}, { timeout: 5000 })).toBeInTheDocument();
    fireEvent.change(within(form).getByLabelText('手机号'), { target: { value: '2381234567' } });
    fireEvent.blur(within(form).getByLabelText('手机号'));
    expect(await within(form).findByText('请输入正确的手机号', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(calls((_, init) => init?.method === 'POST' || init?.method === 'PUT')).toHaveLength(0);
  });

  it('edits with the personal values left empty (kept by the server) and shows a 4009 under the field it names', async () => {
    answerPut = () => envelope(4009, null, '该手机号已被其他司机使用');
    mount();
    await row();
    await userEvent.click(screen.getByTestId('driver-edit'));
    const form = await screen.findByTestId('driver-form');
    expect(within(form).getByLabelText('手机号')).toHaveAttribute('placeholder', '138****5678（不修改请留空）');
    fireEvent.change(within(form).getByLabelText('手机号'), { target: { value: '13900000000' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('该手机号已被其他司机使用', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    const [put] = calls((u, init) => u === '/api/v1/drivers/d1' && init?.method === 'PUT');
    expect(JSON.parse(String(put.init.body))).toMatchObject({
      name: '张伟', phone: '13900000000', idNumber: '', address: '', licenceClass: 'C1', licenceExpireTime: '2031-06-01', status: 'ACTIVE',
      licenceFront: { name: 'front.jpg', key: '' }, licenceBack: null,
    });
  });

  it('shows the server field errors of a 4000 under their fields', async () => {
    answerPut = () => envelope(4000, { fields: [{ field: 'licenceExpireTime', message: '驾驶证有效期须晚于初次领证日期' }] }, '驾驶证有效期须晚于初次领证日期');
    mount();
    await row();
    await userEvent.click(screen.getByTestId('driver-edit'));
    const form = await screen.findByTestId('driver-form');
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('驾驶证有效期须晚于初次领证日期', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
  });

  it('opens the detail with the driver operation log', async () => {
    mount();
    await userEvent.click(await screen.findByTestId('driver-name'));
    const detail = await screen.findByTestId('driver-detail');
    expect(await within(detail).findByText('司机姓名：由「张三」改为「张伟」')).toBeInTheDocument();
    expect(within(detail).getByText('front.jpg')).toBeInTheDocument();
    const [log] = calls((u) => u.startsWith('/api/v1/operation-logs'));
    expect(log.url.searchParams.get('businessType')).toBe('DRIVER');
    expect(log.url.searchParams.get('businessId')).toBe('d1');
  });

  it('opens a licence image through the file-link viewer: asks first, reveals once with the audit, shows the signed link', async () => {
    fetchMock.mockImplementation((url: string) => {
      if (url === '/api/v1/me') return ok(me(permissions));
      if (url === '/api/v1/orgs/simple') return ok([{ orgId: 'o1', parentId: '', name: '华南大区', orgCode: 'r', level: 1 }]);
      if (url === '/api/v1/drivers/d1/reveal') return ok({ value: 'e1/driver/f/front.jpg', needsConfirmation: true, logId: 'log-2', url: '/api/v1/files/download?key=e1%2Fdriver%2Ff%2Ffront.jpg&expires=1&sig=ab' });
      if (url === '/api/v1/drivers/d1') return ok(driver);
      if (url.startsWith('/api/v1/drivers')) return ok({ list: [driver], total: 1 });
      return ok({ list: [], total: 0, totalNum: 0 });
    });
    mount();
    await userEvent.click(await screen.findByTestId('driver-name'));
    const detail = await screen.findByTestId('driver-detail');
    await userEvent.click(await within(detail).findByTestId('driver-image'));
    expect(await screen.findByText('查看证件信息将被记录，确定查看吗？')).toBeInTheDocument();
    expect(calls((u) => u === '/api/v1/drivers/d1/reveal')).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: /确\s*定/ }));
    await waitFor(() => expect(document.querySelector('.ant-image-preview img')).not.toBeNull());
    expect(document.querySelector('.ant-image-preview img')?.getAttribute('src')).toContain('/api/v1/files/download?key=e1%2Fdriver');
    const reveals = calls((u) => u === '/api/v1/drivers/d1/reveal');
    expect(reveals).toHaveLength(1);
    expect(JSON.parse(String(reveals[0].init.body))).toEqual({ sensitiveType: 6, pageUrl: PATH, sourceModule: 'driver' });
  });

  it('disables the image button with 暂无文件访问权限 without as:sensitive:view, revealing nothing', async () => {
    permissions = ['as:sys:driver'];
    mount();
    await userEvent.click(await screen.findByTestId('driver-name'));
    const detail = await screen.findByTestId('driver-detail');
    const button = await within(detail).findByRole('button', { name: '暂无文件访问权限' });
    expect(button).toBeDisabled();
    expect(within(detail).queryByText('front.jpg')).toBeNull();
    expect(calls((u) => u === '/api/v1/drivers/d1/reveal')).toHaveLength(0);
  });

  it('shows the ID card end in the detail and edits it to long-term (长期): the date cleared and disabled', async () => {
    mount();
    await userEvent.click(await screen.findByTestId('driver-name'));
    const basic = await screen.findByTestId('driver-basic');
    expect(within(basic).getByText('身份证有效期至').closest('th')?.nextElementSibling).toHaveTextContent('2030-02-01');
    await userEvent.click(screen.getByTestId('driver-detail-edit'));
    const form = await screen.findByTestId('driver-form');
    const end = within(form).getByLabelText('身份证有效期至');
    expect(end).toHaveValue('2030-02-01');
    await userEvent.click(within(form).getByTestId('driver-id-card-long-term'));
    await waitFor(() => expect(within(form).getByLabelText('身份证有效期至')).toBeDisabled());
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(calls((u, init) => u === '/api/v1/drivers/d1' && init?.method === 'PUT')).toHaveLength(1));
    const [put] = calls((u, init) => u === '/api/v1/drivers/d1' && init?.method === 'PUT');
    expect(JSON.parse(String(put.init.body))).toMatchObject({ idCardExpireTime: '', idCardLongTerm: true });
  });

  it('shows an empty value in the detail as - (the table keeps --)', async () => {
    mount();
    await userEvent.click(await screen.findByTestId('driver-name'));
    const basic = await screen.findByTestId('driver-basic');
    const value = (label: string) => within(basic).getByText(label).closest('th')?.nextElementSibling;
    expect(value('工号')).toHaveTextContent(/^-$/);
    expect(within(basic).queryByText('--')).not.toBeInTheDocument();
  });
});
