import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import BillListPage from './bill-list';
import BillDetailPage from './bill-detail';
import { bill, failed, me, ok } from './test-support';

const BASE = '/financialManagement/billManagement';
let listAnswer: () => Promise<Response>;
let b2b: boolean;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  b2b = true;
  listAnswer = () => ok({ list: [bill('01'), bill('02', { status: 'PAID', paidFen: 350_000, outstandingFen: 0 })], total: 2, totals: { payableFen: 700_000, paidFen: 350_000, outstandingFen: 350_000 } });
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/me') return ok(me(b2b));
    if (url.startsWith('/api/v1/finance/bills?')) return listAnswer();
    if (url === '/api/v1/finance/bills/01')
      return ok({
        bill: bill('01', { lines: [{ description: '粤B11111 11月租金', vehicleId: 'v1', plateNumber: '粤B11111', periodStart: '', periodEnd: '', quantity: 1, unitPriceFen: 350_000, amountFen: 350_000, taxRateBp: 900 }] }),
        payments: [],
      });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('bills (billList, billDetail)', () => {
  it('asks for the first page of 20 and shows amounts in ¥, the totals and pay only where money is due', async () => {
    renderWithProviders(<BillListPage />, { route: `${BASE}/billList` });
    const first = (await screen.findByText('ZD202611000001')).closest('tr') as HTMLElement;
    expect(first).toHaveTextContent('¥3,500.00');
    expect(first).toHaveTextContent('待支付');
    await waitFor(() => expect(within(first).getByTestId('bill-pay')).toBeInTheDocument());
    const second = screen.getByText('ZD202611000002').closest('tr') as HTMLElement;
    expect(within(second).queryByTestId('bill-pay')).toBeNull();
    expect(screen.getByTestId('bill-totals')).toHaveTextContent('¥7,000.00');
    const listed = fetchMock.mock.calls.map(([url]) => String(url)).find((u) => u.startsWith('/api/v1/finance/bills?'));
    expect(listed).toContain('page=1');
    expect(listed).toContain('size=20');
  });

  it('offers no page pay to an enterprise that is not B2B', async () => {
    b2b = false;
    renderWithProviders(<BillListPage />, { route: `${BASE}/billList` });
    await screen.findByText('ZD202611000001');
    await waitFor(() => expect(fetchMock.mock.calls.some(([u]) => u === '/api/v1/me')).toBe(true));
    expect(screen.queryByTestId('bill-pay')).toBeNull();
  });

  it('shows the empty state and a load error', async () => {
    listAnswer = () => ok({ list: [], total: 0, totals: { payableFen: 0, paidFen: 0, outstandingFen: 0 } });
    const { unmount } = renderWithProviders(<BillListPage />, { route: `${BASE}/billList` });
    expect(await screen.findByTestId('finance-bill-list')).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByText('暂无数据').length).toBeGreaterThan(0));
    expect(screen.queryByText('ZD202611000001')).toBeNull();
    unmount();
    listAnswer = () => failed(5003, '服务暂不可用', 503);
    renderWithProviders(<BillListPage />, { route: `${BASE}/billList` });
    await waitFor(() => expect(screen.getAllByText(/服务暂不可用|加载失败/).length).toBeGreaterThan(0));
  });

  it('leads a rent bill to the usage record it was raised from', async () => {
    renderWithProviders(<BillDetailPage />, { route: `${BASE}/billDetail?id=01` });
    const detail = await screen.findByTestId('bill-detail');
    expect(within(detail).getByTestId('bill-lines')).toHaveTextContent('粤B11111');
    expect(within(detail).getByTestId('bill-source')).toHaveAttribute('href', '/carManagement/assetsData/carUsedRecord/carRentRecord?id=ur1');
    expect(within(detail).getByTestId('bill-outstanding')).toHaveTextContent('¥3,500.00');
  });
});
