import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import TrafficViolationDetailPage from './traffic-violations-detail';
import TrafficViolationsPage from './traffic-violations';

const PATH = '/carManagement/vehicleManagement/trafficViolations';
const ok = (data: unknown) =>
  Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const failed = (code: number, msg: string, status: number) =>
  Promise.resolve(
    new Response(JSON.stringify({ code, msg, data: null }), { status }),
  );
const me = {
  id: 'u1',
  name: '演示管理员',
  userName: 'demo',
  roles: ['admin'],
  permissions: [{ permissionValue: 'as:violation' }],
  flags: {},
};

const violation = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: 'v1',
  plateNumber: '粤B11111',
  vin: 'LGXCE4CB6R0046600',
  decisionNo: `44030020261101${id}`,
  violationTime: '2026-11-01T02:30:00Z',
  address: '深南大道与华强北路交叉口',
  location: { longitude: 114.0869, latitude: 22.5431 },
  cityCode: '440300',
  offenceCode: '1352A',
  description: '机动车超过规定时速未达20%的',
  fineFen: 20_000,
  penaltyPoints: 1,
  authority: '深圳市公安局交通警察支队',
  status: 'UNHANDLED',
  source: 'FETCHED',
  driverId: 'd1',
  driverName: '王师傅',
  driverAssigned: false,
  handlerName: '',
  handledTime: '',
  paidByName: '',
  paidTime: '',
  receipts: [],
  remark: '',
  syncTime: '2026-11-02T00:00:00Z',
  ...over,
});

let listAnswer: () => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  listAnswer = () =>
    ok({
      list: [
        violation('0001'),
        violation('0002', { status: 'PAID', driverId: '', driverName: '' }),
      ],
      total: 2,
      totalFineFen: 40_000,
      totalPenaltyPoints: 2,
    });
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/pickers/drivers'))
      return ok([{ id: 'd2', name: '李师傅' }]);
    if (url.startsWith('/api/v1/maintenance/violations?')) return listAnswer();
    if (
      url === '/api/v1/maintenance/violations/0001/handle' &&
      init?.method === 'POST'
    )
      return failed(4009, '该违章已处理，请刷新后查看', 409);
    if (
      url === '/api/v1/maintenance/violations/0001/assign' &&
      init?.method === 'POST'
    )
      return ok(
        violation('0001', {
          driverId: 'd2',
          driverName: '李师傅',
          driverAssigned: true,
        }),
      );
    if (url === '/api/v1/maintenance/violations/0001')
      return ok({
        violation: violation('0001'),
        logs: [
          {
            remark:
              '从交管部门获取违章记录（决定书编号440300202611010001），责任司机：王师傅',
            operName: '系统',
            operTime: '2026-11-02T00:00:00Z',
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

const calls = (suffix: string) =>
  fetchMock.mock.calls.filter(
    ([url, init]) =>
      String(url).endsWith(suffix) &&
      (init as RequestInit | undefined)?.method === 'POST',
  );

describe('traffic violations (trafficViolations)', () => {
  it('lists the violations newest first, 20 a page, with their state, driver and the totals', async () => {
    renderWithProviders(<TrafficViolationsPage />, { route: PATH });
    const first = (await screen.findByText('440300202611010001')).closest(
      'tr',
    ) as HTMLElement;
    expect(first).toHaveTextContent('未处理');
    expect(first).toHaveTextContent('王师傅');
    expect(first).toHaveTextContent('200.00');
    const second = (await screen.findByText('440300202611010002')).closest(
      'tr',
    ) as HTMLElement;
    expect(second).toHaveTextContent('已缴款');
    expect(second).toHaveTextContent('--');
    expect(await screen.findByTestId('violation-totals')).toHaveTextContent(
      '罚款合计 400.00 元，扣分合计 2 分',
    );
    const listed = fetchMock.mock.calls
      .map(([url]) => String(url))
      .find((u) => u.startsWith('/api/v1/maintenance/violations?'));
    expect(listed).toContain('page=1');
    expect(listed).toContain('size=20');
  });

  it('shows the empty state and a load error', async () => {
    listAnswer = () =>
      ok({ list: [], total: 0, totalFineFen: 0, totalPenaltyPoints: 0 });
    const { unmount } = renderWithProviders(<TrafficViolationsPage />, {
      route: PATH,
    });
    expect(await screen.findByTestId('violation-totals')).toHaveTextContent(
      '罚款合计 0.00 元',
    );
    unmount();
    listAnswer = () => failed(5000, '服务异常', 500);
    renderWithProviders(<TrafficViolationsPage />, { route: PATH });
    await waitFor(() =>
      expect(screen.getAllByText(/服务异常|加载失败/).length).toBeGreaterThan(
        0,
      ),
    );
  });

  it('assigns a driver on the detail and keeps the dialog open when handling is refused', async () => {
    renderWithProviders(<TrafficViolationDetailPage />, {
      route: '/carManagement/vehicleManagement/trafficViolationsDetail?id=0001',
    });
    const detail = await screen.findByTestId('violation-detail');
    expect(
      within(detail).getByTestId('violation-detail-driver'),
    ).toHaveTextContent('王师傅（按用车记录与绑定认定）');
    expect(within(detail).getByTestId('violation-pay')).toBeDisabled();
    expect(within(detail).getByTestId('violation-logs')).toHaveTextContent(
      '责任司机：王师傅',
    );

    fireEvent.click(within(detail).getByTestId('violation-handle'));
    fireEvent.click(await screen.findByRole('button', { name: '提 交' }));
    await waitFor(() => expect(calls('/handle')).toHaveLength(1));
    expect(screen.getByTestId('violation-move-form')).toBeInTheDocument();
  });
});
