import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import DrivingLicensePage from './driving-license';

const PATH = '/carManagement/vehicleManagement/drivingLicense';
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
  permissions: [{ permissionValue: 'as:inspection' }],
  flags: {},
};

const inspection = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: `v${id}`,
  plateNumber: '粤B11111',
  vin: 'LGXCE4CB6R0046600',
  registerTime: '2022-11-19T16:00:00Z',
  inspectionClass: 'GOODS',
  expireTime: '2026-11-19T16:00:00Z',
  status: 'OVERDUE',
  remainingDays: -9,
  lastInspectionTime: '2025-11-10T16:00:00Z',
  lastResult: 'PASSED',
  stationName: '深圳市安车机动车检测站',
  lastOdometerM: 120_000_000,
  lastCostFen: 39_000,
  licenceImages: [],
  remark: '',
  updatedBy: '演示管理员',
  updateTime: '2025-11-10T16:00:00Z',
  ...over,
});

let listAnswer: () => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  listAnswer = () =>
    ok({
      list: [
        inspection('1'),
        inspection('2', {
          plateNumber: '粤B22222',
          status: 'DUE_SOON',
          remainingDays: 12,
          lastResult: null,
        }),
      ],
      total: 2,
    });
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me);
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/maintenance/inspections?')) return listAnswer();
    if (
      url === '/api/v1/maintenance/inspections/v1/record' &&
      init?.method === 'POST'
    )
      return ok({
        inspection: inspection('1', {
          status: 'VALID',
          expireTime: '2027-11-28T16:00:00Z',
          remainingDays: 365,
        }),
        record: {
          id: 'r1',
          vehicleId: 'v1',
          plateNumber: '粤B11111',
          inspectionTime: '2026-11-28T16:00:00Z',
          result: 'PASSED',
          stationName: '',
          odometerM: 0,
          costFen: 0,
          images: [],
          remark: '',
          previousExpireTime: '2026-11-19T16:00:00Z',
          expireTime: '2027-11-28T16:00:00Z',
          operatorName: '演示管理员',
          createTime: '2026-11-29T01:00:00Z',
        },
      });
    if (url === '/api/v1/maintenance/inspections/v1')
      return ok({
        inspection: inspection('1'),
        records: [
          {
            id: 'r0',
            vehicleId: 'v1',
            plateNumber: '粤B11111',
            inspectionTime: '2025-11-10T16:00:00Z',
            result: 'FAILED',
            stationName: '深圳市安车机动车检测站',
            odometerM: 120_000_000,
            costFen: 39_000,
            images: [
              {
                key: 'k',
                name: '行驶证副页.jpg',
                contentType: 'image/jpeg',
                sizeBytes: 1,
              },
            ],
            remark: '制动不合格',
            previousExpireTime: '2025-11-19T16:00:00Z',
            expireTime: '2025-11-19T16:00:00Z',
            operatorName: '演示管理员',
            createTime: '2025-11-11T01:00:00Z',
          },
        ],
        logs: [
          {
            remark: '登记年检：2025-11-11，不合格',
            operName: '演示管理员',
            operTime: '2025-11-11T01:00:00Z',
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

const listed = () =>
  fetchMock.mock.calls
    .map(([url]) => String(url))
    .filter((u) => u.startsWith('/api/v1/maintenance/inspections?'));

describe('annual inspections (drivingLicense)', () => {
  it('lists the vehicles soonest due first, 20 a page, with their due state and days left', async () => {
    renderWithProviders(<DrivingLicensePage />, { route: PATH });
    const first = (await screen.findByText('粤B11111')).closest(
      'tr',
    ) as HTMLElement;
    expect(first).toHaveTextContent('已逾期');
    expect(first).toHaveTextContent('2026-11-20');
    expect(first).toHaveTextContent('-9');
    expect(first).toHaveTextContent('载货汽车');
    const second = (await screen.findByText('粤B22222')).closest(
      'tr',
    ) as HTMLElement;
    expect(second).toHaveTextContent('即将到期');
    expect(listed()[0]).toContain('page=1');
    expect(listed()[0]).toContain('size=20');
  });

  it('asks for the overdue ones from their tab', async () => {
    renderWithProviders(<DrivingLicensePage />, { route: PATH });
    await screen.findByText('粤B11111');
    fireEvent.click(
      within(screen.getByTestId('inspection-tabs')).getByText('已逾期'),
    );
    await waitFor(() =>
      expect(listed().some((u) => u.includes('statuses=OVERDUE'))).toBe(true),
    );
  });

  it('shows the empty state and a load error', async () => {
    listAnswer = () => ok({ list: [], total: 0 });
    const { unmount } = renderWithProviders(<DrivingLicensePage />, {
      route: PATH,
    });
    await waitFor(() => expect(listed().length).toBeGreaterThan(0));
    expect(screen.queryByText('粤B11111')).not.toBeInTheDocument();
    unmount();
    listAnswer = () => failed(5000, '服务异常', 500);
    renderWithProviders(<DrivingLicensePage />, { route: PATH });
    await waitFor(() =>
      expect(screen.getAllByText(/服务异常|加载失败/).length).toBeGreaterThan(
        0,
      ),
    );
  });

  it('records an inspection and shows the history in the drawer', async () => {
    renderWithProviders(<DrivingLicensePage />, { route: PATH });
    const row = (await screen.findByText('粤B11111')).closest(
      'tr',
    ) as HTMLElement;
    fireEvent.click(within(row).getByTestId('inspection-record'));
    fireEvent.click(await screen.findByRole('button', { name: '提 交' }));
    await waitFor(() =>
      expect(
        fetchMock.mock.calls.some(
          ([url, init]) =>
            String(url).endsWith('/v1/record') &&
            (init as RequestInit).method === 'POST',
        ),
      ).toBe(true),
    );
    const [, init] = fetchMock.mock.calls.find(([url]) =>
      String(url).endsWith('/v1/record'),
    ) as [string, RequestInit];
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    expect(body.result).toBe('PASSED');
    expect(body.inspectionClass).toBe('GOODS');
    expect(String(body.inspectionTime)).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    fireEvent.click(within(row).getByTestId('inspection-view'));
    const detail = await screen.findByTestId('inspection-detail');
    expect(within(detail).getByTestId('inspection-history')).toHaveTextContent(
      '不合格',
    );
    expect(within(detail).getByTestId('inspection-history')).toHaveTextContent(
      '行驶证副页.jpg',
    );
    expect(within(detail).getByTestId('inspection-logs')).toHaveTextContent(
      '登记年检',
    );
  });
});
