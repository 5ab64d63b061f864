import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import MyCouponsPage from './my-coupons';
import { failed, me, ok } from './test-support';

const coupon = {
  id: 'c1',
  couponNo: 'YHQ0001',
  name: '新年租金券',
  kind: 'PERCENT_OFF',
  faceValueFen: 0,
  percentOffBp: 1_000,
  maxDiscountFen: 50_000,
  minSpendFen: 100_000,
  applicableBillKinds: ['RENT'],
  applicableOrderKinds: [],
  validFrom: '2026-11-01T00:00:00Z',
  validUntil: '2026-12-31T00:00:00Z',
  status: 'AVAILABLE',
  campaign: '年终回馈',
  issuedTime: '',
  usedPaymentId: '',
  usedOrderId: '',
  usedTime: '',
  usedDiscountFen: 0,
};

let answer: () => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  answer = () => ok({ list: [coupon], total: 1 });
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/me') return ok(me(false));
    if (url.startsWith('/api/v1/finance/coupons?')) return answer();
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('my coupons (myCoupons)', () => {
  it('lists the coupons with their value, threshold and state', async () => {
    renderWithProviders(<MyCouponsPage />, { route: '/myCoupons?statuses=AVAILABLE' });
    const row = (await screen.findByText('YHQ0001')).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('10% 折扣（最高 ¥500.00）');
    expect(row).toHaveTextContent('满 ¥1,000.00 可用');
    expect(row).toHaveTextContent('可使用');
    const asked = fetchMock.mock.calls.map(([u]) => String(u)).find((u) => u.startsWith('/api/v1/finance/coupons?'));
    expect(asked).toContain('statuses=AVAILABLE');
    expect(asked).toContain('size=20');
  });

  it('shows the empty state and a load error', async () => {
    answer = () => ok({ list: [], total: 0 });
    const { unmount } = renderWithProviders(<MyCouponsPage />, { route: '/myCoupons' });
    await waitFor(() => expect(screen.getAllByText('暂无数据').length).toBeGreaterThan(0));
    unmount();
    answer = () => failed(9999, '您没有访问权限', 403);
    renderWithProviders(<MyCouponsPage />, { route: '/myCoupons' });
    await waitFor(() => expect(screen.getAllByText(/没有访问权限|加载失败/).length).toBeGreaterThan(0));
  });
});
