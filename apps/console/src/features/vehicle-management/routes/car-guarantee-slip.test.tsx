import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CarGuaranteeSlipPage from './car-guarantee-slip';
import InsuranceOrderPage from './insurance-order';

const PATH = '/carManagement/vehicleManagement/carGuaranteeSlip';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const failed = (code: number, msg: string, status: number) => Promise.resolve(new Response(JSON.stringify({ code, msg, data: null }), { status }));
const me = (permissions: string[]) => ({
  id: 'u1',
  name: '演示管理员',
  userName: 'demo',
  roles: ['admin'],
  permissions: permissions.map((permissionValue) => ({ permissionValue })),
  flags: {},
});

const policy = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: 'v1',
  plateNumber: '粤B11111',
  vin: 'LGXCE4CB6R0046600',
  kind: 'COMMERCIAL',
  insurer: '中国人民财产保险股份有限公司',
  policyNo: `PDAA2026${id}`,
  insuredName: '演示物流有限公司',
  startTime: '2025-12-31T16:00:00Z',
  endTime: '2026-12-31T15:59:59Z',
  premiumFen: 350_000,
  coverages: [
    { name: '机动车损失保险', sumInsuredFen: 15_000_000, premiumFen: 200_000, deductibleFen: 0 },
    { name: '第三者责任保险', sumInsuredFen: 200_000_000, premiumFen: 150_000, deductibleFen: 0 },
  ],
  status: 'EXPIRING',
  documents: [{ key: 'e1/document/x/保单.pdf', name: '保单.pdf', contentType: 'application/pdf', sizeBytes: 900 }],
  createdBy: '演示管理员',
  createTime: '2025-12-20T00:00:00Z',
  updatedBy: '演示管理员',
  updateTime: '2025-12-20T00:00:00Z',
  ...over,
});

let permissions: string[];
let listAnswer: () => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn>;
const link = { url: '/api/v1/files/download?key=e1%2Fdocument%2Fx%2F%E4%BF%9D%E5%8D%95.pdf&expires=1&sig=ab', name: '保单.pdf', contentType: 'application/pdf' };
beforeEach(() => {
  permissions = ['as:insurance', 'as:insurance:file'];
  listAnswer = () => ok({ list: [policy('0001'), policy('0002', { kind: 'COMPULSORY', status: 'EXPIRED', coverages: [] })], total: 2 });
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(permissions));
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/maintenance/insurance/policies?')) return listAnswer();
    if (url.startsWith('/api/v1/maintenance/insurance/policies/0001/documents/link?')) return ok(link);
    if (url === '/api/v1/maintenance/insurance/policies/0001' && (!init?.method || init.method === 'GET'))
      return ok({ policy: policy('0001'), logs: [{ remark: '录入保单：中国人民财产保险股份有限公司 商业险（保单号PDAA20260001）', operName: '演示管理员', operTime: '2025-12-20T00:00:00Z' }] });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const listed = () => fetchMock.mock.calls.map(([url]) => String(url)).filter((u) => u.startsWith('/api/v1/maintenance/insurance/policies?'));

describe('insurance policies (carGuaranteeSlip)', () => {
  it('lists the policies 20 a page with their kind, period, premium and expiry state', async () => {
    renderWithProviders(<CarGuaranteeSlipPage />, { route: PATH });
    const first = (await screen.findByText('PDAA20260001')).closest('tr') as HTMLElement;
    expect(first).toHaveTextContent('商业险');
    expect(first).toHaveTextContent('即将到期');
    expect(first).toHaveTextContent('3,500.00');
    expect(first).toHaveTextContent('2026-01-01');
    expect(first).toHaveTextContent('2026-12-31');
    const second = (await screen.findByText('PDAA20260002')).closest('tr') as HTMLElement;
    expect(second).toHaveTextContent('交强险');
    expect(second).toHaveTextContent('已过期');
    expect(listed()[0]).toContain('page=1');
    expect(listed()[0]).toContain('size=20');
  });

  it('asks for the expiry states kept in the URL', async () => {
    renderWithProviders(<CarGuaranteeSlipPage />, { route: `${PATH}?statuses=EXPIRING&statuses=EXPIRED&kinds=COMPULSORY` });
    await screen.findByText('PDAA20260001');
    const url = listed()[0];
    expect(url).toContain('statuses=EXPIRING');
    expect(url).toContain('statuses=EXPIRED');
    expect(url).toContain('kinds=COMPULSORY');
  });

  it('shows the empty state and a load error', async () => {
    listAnswer = () => ok({ list: [], total: 0 });
    const { unmount } = renderWithProviders(<CarGuaranteeSlipPage />, { route: PATH });
    await waitFor(() => expect(listed().length).toBeGreaterThan(0));
    expect(await screen.findByTestId('policy-list')).toHaveTextContent(/暂无数据|No data/);
    unmount();
    listAnswer = () => failed(5000, '服务异常', 500);
    renderWithProviders(<CarGuaranteeSlipPage />, { route: PATH });
    await waitFor(() => expect(screen.getAllByText(/服务异常|加载失败/).length).toBeGreaterThan(0));
  });

  it('opens the detail with its coverage items, documents and operation log', async () => {
    renderWithProviders(<CarGuaranteeSlipPage />, { route: PATH });
    const row = (await screen.findByText('PDAA20260001')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByTestId('policy-view'));
    const detail = await screen.findByTestId('policy-detail');
    const coverages = within(detail).getByTestId('coverage-table');
    expect(coverages).toHaveTextContent('第三者责任保险');
    expect(coverages).toHaveTextContent('2,000,000.00');
    expect(within(detail).getByTestId('policy-documents')).toHaveTextContent('保单.pdf');
    expect(await within(detail).findByText(/录入保单/)).toBeInTheDocument();
  });

  it('refuses to record a policy with its required fields empty, sending nothing', async () => {
    renderWithProviders(<CarGuaranteeSlipPage />, { route: PATH });
    await screen.findByText('PDAA20260001');
    fireEvent.click(screen.getByTestId('policy-add'));
    expect(await screen.findByRole('dialog')).toHaveTextContent('录入保单');
    fireEvent.click(await screen.findByRole('button', { name: '提 交' }));
    // Required fields refuse before anything is sent.
    expect(await screen.findAllByText(/请输入|请选择/)).not.toHaveLength(0);
    expect(fetchMock.mock.calls.some(([, init]) => (init as RequestInit | undefined)?.method === 'POST')).toBe(false);
  });
});

describe('policy download (insuranceOrder)', () => {
  it('fetches a fresh signed link of a document and opens it', async () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWithProviders(<InsuranceOrderPage />, { route: '/carManagement/vehicleManagement/insuranceOrder?id=0001' });
    const page = await screen.findByTestId('insurance-order');
    expect(page).toHaveTextContent('PDAA20260001');
    fireEvent.click(await within(page).findByRole('button', { name: '下载保单' }));
    await waitFor(() => expect(open).toHaveBeenCalledWith(link.url, '_blank', 'noopener,noreferrer'));
    expect(fetchMock.mock.calls.some(([url]) => String(url).startsWith('/api/v1/maintenance/insurance/policies/0001/documents/link?key=e1%2Fdocument'))).toBe(true);
  });

  it('disables the download with 暂无文件访问权限 without the file permission, fetching no link', async () => {
    permissions = ['as:insurance'];
    renderWithProviders(<InsuranceOrderPage />, { route: '/carManagement/vehicleManagement/insuranceOrder?id=0001' });
    const page = await screen.findByTestId('insurance-order');
    const button = await within(page).findByRole('button', { name: '暂无文件访问权限' });
    expect(button).toBeDisabled();
    fireEvent.click(button);
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/documents/link'))).toBe(false);
  });
});
