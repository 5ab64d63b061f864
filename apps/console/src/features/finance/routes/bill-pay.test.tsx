import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import BillPayPage, { couponDeduction } from './bill-pay';
import { bill, bodyOf, calls, keyOf, me, ok } from './test-support';

const ROUTE = '/financialManagement/billManagement/billPay?id=01';
const payment = (status: string, over: Record<string, unknown> = {}) => ({
  id: 'p1',
  paymentNo: 'ZF20261129001',
  method: 'ONLINE_BANKING',
  status,
  amountFen: 350_000,
  couponId: '',
  couponDeductionFen: 0,
  allocations: [],
  payerName: '',
  payerBankName: '',
  payerMaskedAccount: '',
  transactionNo: '',
  voucher: null,
  payUrl: 'https://bank.example/pay/p1',
  expireTime: '',
  paidTime: '',
  failureReason: '',
  requestedBy: '',
  createTime: '',
  ...over,
});

let fetchMock: ReturnType<typeof vi.fn>;
let paymentAnswers: string[];
beforeEach(() => {
  paymentAnswers = ['PENDING', 'SUCCEEDED'];
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(true));
    if (url === '/api/v1/finance/bills/01') return ok({ bill: bill('01'), payments: [] });
    if (url === '/api/v1/finance/ledger/balances') return ok([{ account: 'PREPAID_BALANCE', balanceFen: 1_000_000, asOfTime: '' }]);
    if (url.startsWith('/api/v1/finance/coupons?')) return ok({ list: [], total: 0 });
    if (url === '/api/v1/finance/payments' && init?.method === 'POST') {
      const body = JSON.parse(String(init.body)) as { method: string };
      return ok(body.method === 'PREPAID_BALANCE' ? payment('SUCCEEDED', { method: 'PREPAID_BALANCE', payUrl: '' }) : payment('PENDING'));
    }
    if (url === '/api/v1/finance/payments/p1') return ok(payment(paymentAnswers.shift() ?? 'SUCCEEDED'));
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('bill pay (billPay)', () => {
  it('pays the outstanding from the balance once, with an Idempotency-Key and the total seen', async () => {
    paymentAnswers = ['SUCCEEDED'];
    renderWithProviders(<BillPayPage />, { route: ROUTE });
    expect(await screen.findByTestId('pay-total')).toHaveTextContent('¥3,500.00');
    expect(await screen.findByText(/余额 ¥10,000\.00/)).toBeInTheDocument();
    const submit = screen.getByTestId('pay-submit');
    fireEvent.click(submit);
    fireEvent.click(submit);
    expect(await screen.findByTestId('pay-result')).toHaveTextContent('支付成功');
    const posts = calls(fetchMock, 'POST', '/api/v1/finance/payments');
    expect(posts).toHaveLength(1);
    expect(bodyOf(posts[0])).toMatchObject({ billIds: ['01'], method: 'PREPAID_BALANCE', expectedTotalFen: 350_000 });
    expect(keyOf(posts[0])).toMatch(/\S{16,}/);
  });

  it('opens the bank page for a bank transfer and shows pending until the payment settles', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    renderWithProviders(<BillPayPage />, { route: ROUTE });
    fireEvent.click(await screen.findByTestId('pay-bank'));
    fireEvent.click(screen.getByTestId('pay-submit'));
    expect(await screen.findByTestId('pay-pending')).toBeInTheDocument();
    expect(open).toHaveBeenCalledWith('https://bank.example/pay/p1', '_blank', 'noopener');
    const billReads = calls(fetchMock, 'GET', '/api/v1/finance/bills/01').length;
    expect(await screen.findByTestId('pay-result', {}, { timeout: 8_000 })).toHaveTextContent('支付成功');
    expect(calls(fetchMock, 'GET', '/api/v1/finance/payments/p1').length).toBeGreaterThanOrEqual(2);
    // Settled after the pay call: the bill is read again, so going back shows it paid.
    await waitFor(() => expect(calls(fetchMock, 'GET', '/api/v1/finance/bills/01').length).toBeGreaterThan(billReads));
  }, 15_000);

  it('takes a coupon off as the service does: capped, never below zero, not under its threshold', () => {
    const coupon = { kind: 'PERCENT_OFF', percentOffBp: 1_000, maxDiscountFen: 20_000, minSpendFen: 100_000, faceValueFen: 0 } as Parameters<typeof couponDeduction>[0];
    expect(couponDeduction(coupon, 350_000)).toBe(20_000);
    expect(couponDeduction(coupon, 150_000)).toBe(15_000);
    expect(couponDeduction(coupon, 90_000)).toBe(0);
    const amount = { kind: 'AMOUNT_OFF', faceValueFen: 50_000, minSpendFen: 0, percentOffBp: 0, maxDiscountFen: 0 } as Parameters<typeof couponDeduction>[0];
    expect(couponDeduction(amount, 30_000)).toBe(30_000);
    expect(couponDeduction(undefined, 30_000)).toBe(0);
  });
});
