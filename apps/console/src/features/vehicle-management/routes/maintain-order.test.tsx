import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import MaintainOrderPage from './maintain-order';
import PriceConfirmPage from './price-confirm';
import StatementDetailPage from './statement-detail';

const BASE = '/carManagement/vehicleManagement/maintainment';
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
  permissions: [{ permissionValue: 'as:maintain' }],
  flags: {},
};

const order = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  orderNo: `WX2026112900${id}`,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: 'v1',
  plateNumber: '粤B11111',
  vin: '',
  driverId: '',
  driverName: '',
  contactName: '李四',
  contactMaskedPhone: '139****9000',
  kind: 'REPAIR',
  status: 'QUOTED',
  faultDescription: '刹车异响',
  faultImages: [],
  odometerM: 52_000_000,
  shopId: 's1',
  shopName: '深圳市鹏程汽车维修有限公司',
  shopAddress: '',
  appointmentTime: '',
  quoteItems: [
    {
      name: '变速箱总成',
      kind: 'PART',
      partNo: '',
      quantity: 1,
      unitPriceFen: 300_000,
      amountFen: 300_000,
      warranty: false,
    },
  ],
  quoteTotalFen: 300_000,
  quoteTime: '2026-11-29T02:00:00Z',
  quoteRemark: '',
  quoteRejectReason: '',
  confirmedTotalFen: 0,
  confirmedBy: '',
  confirmTime: '',
  approvalId: '',
  finalTotalFen: 0,
  completedTime: '',
  completedOdometerM: 0,
  completionImages: [],
  recordId: '',
  statementId: '',
  accidentId: '',
  cancelReason: '',
  remark: '',
  createdBy: '演示管理员',
  createTime: '2026-11-29T01:00:00Z',
  ...over,
});

const config = {
  approvalThresholdFen: 100_000,
  suppliers: [
    {
      id: 's1',
      orgId: 'o1',
      orgName: '华南大区',
      name: '深圳市鹏程汽车维修有限公司',
      address: '',
      contactName: '',
      contactPhone: '',
      enabled: true,
      remark: '',
    },
  ],
  items: [],
};

let listAnswer: () => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  listAnswer = () =>
    ok({
      list: [order('01'), order('02', { status: 'SETTLED' })],
      total: 2,
    });
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url === '/api/v1/maintenance/repair-config') return ok(config);
    if (url.startsWith('/api/v1/maintenance/repair-orders?'))
      return listAnswer();
    if (url === '/api/v1/maintenance/repair-orders/01')
      return ok({ order: order('01'), logs: [] });
    if (
      url === '/api/v1/maintenance/repair-orders/01/confirm-price' &&
      init?.method === 'POST'
    )
      return ok(order('01', { status: 'AWAITING_APPROVAL' }));
    if (url === '/api/v1/maintenance/repair-statements/st1')
      return ok({
        statement: {
          id: 'st1',
          statementNo: 'JS202611290001',
          orgId: 'o1',
          shopId: 's1',
          shopName: '深圳市鹏程汽车维修有限公司',
          period: '2026-11',
          orderCount: 1,
          totalFen: 300_000,
          status: 'PENDING_CONFIRMATION',
          repairOrderIds: ['01'],
          issuedTime: '2026-11-29T03:00:00Z',
          confirmedBy: '',
          confirmTime: '',
          disputeReason: '',
          billId: '',
        },
        orders: [
          order('01', {
            status: 'COMPLETED',
            finalTotalFen: 300_000,
            completedTime: '2026-11-29T03:00:00Z',
          }),
        ],
        logs: [
          {
            remark: '加入维修单WX202611290001',
            operName: '演示管理员',
            operTime: '2026-11-29T03:00:00Z',
          },
        ],
      });
    if (
      url === '/api/v1/maintenance/repair-statements/st1/confirm' &&
      init?.method === 'POST'
    )
      return failed(4009, '对账单金额已变更，请刷新后重新确认', 409);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const posted = (suffix: string) =>
  fetchMock.mock.calls.filter(
    ([url, init]) =>
      String(url).endsWith(suffix) &&
      (init as RequestInit | undefined)?.method === 'POST',
  );

describe('repair orders (maintainOrder)', () => {
  it('lists the orders newest first, 20 a page, with their state and amounts', async () => {
    renderWithProviders(<MaintainOrderPage />, {
      route: `${BASE}/maintainOrder`,
    });
    const first = (await screen.findByText('WX202611290001')).closest(
      'tr',
    ) as HTMLElement;
    expect(first).toHaveTextContent('待确认价格');
    expect(first).toHaveTextContent('3,000.00');
    expect(within(first).getByTestId('repair-price')).toBeInTheDocument();
    const second = (await screen.findByText('WX202611290002')).closest(
      'tr',
    ) as HTMLElement;
    expect(second).toHaveTextContent('已结算');
    const listed = fetchMock.mock.calls
      .map(([url]) => String(url))
      .find((u) => u.startsWith('/api/v1/maintenance/repair-orders?'));
    expect(listed).toContain('page=1');
    expect(listed).toContain('size=20');
  });

  it('shows the empty state and a load error', async () => {
    listAnswer = () => ok({ list: [], total: 0 });
    const { unmount } = renderWithProviders(<MaintainOrderPage />, {
      route: `${BASE}/maintainOrder`,
    });
    expect(await screen.findByTestId('repair-order-list')).toBeInTheDocument();
    unmount();
    listAnswer = () => failed(5000, '服务异常', 500);
    renderWithProviders(<MaintainOrderPage />, {
      route: `${BASE}/maintainOrder`,
    });
    await waitFor(() =>
      expect(screen.getAllByText(/服务异常|加载失败/).length).toBeGreaterThan(
        0,
      ),
    );
  });

  it('warns that a quote above the threshold goes to approval and sends the total seen', async () => {
    renderWithProviders(<PriceConfirmPage />, {
      route: `${BASE}/priceConfirm?id=01`,
    });
    expect(await screen.findByTestId('repair-price-hint')).toHaveTextContent(
      '超过审批阈值1,000.00',
    );
    fireEvent.click(screen.getByTestId('repair-accept'));
    await waitFor(() => expect(posted('/confirm-price')).toHaveLength(1));
    const body = JSON.parse(
      String((posted('/confirm-price')[0][1] as RequestInit).body),
    );
    expect(body).toMatchObject({ accepted: true, expectedTotalFen: 300_000 });
  });

  it('shows a statement with its orders and keeps the dialog open when confirming is refused', async () => {
    renderWithProviders(<StatementDetailPage />, {
      route: `${BASE}/statementDetail?id=st1`,
    });
    const detail = await screen.findByTestId('statement-detail');
    expect(within(detail).getByTestId('statement-total')).toHaveTextContent(
      '3,000.00',
    );
    expect(within(detail).getByTestId('statement-orders')).toHaveTextContent(
      '粤B11111',
    );
    fireEvent.click(within(detail).getByTestId('statement-confirm'));
    fireEvent.click(await screen.findByRole('button', { name: '提 交' }));
    await waitFor(() => expect(posted('/confirm')).toHaveLength(1));
    expect(screen.getByTestId('statement-confirm-hint')).toBeInTheDocument();
  });
});
