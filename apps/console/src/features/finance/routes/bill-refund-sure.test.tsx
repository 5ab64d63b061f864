import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import BillRefundSurePage from './bill-refund-sure';
import { bodyOf, calls, keyOf, me, ok } from './test-support';

const ROUTE = '/financialManagement/refundManagement/billRefundSureB2B?id=r1';
const refund = (status: string, over: Record<string, unknown> = {}) => ({
  id: 'r1',
  refundNo: 'TK20261129-0001',
  channel: 'B2B',
  billId: '01',
  billNo: 'ZD202611000001',
  orderId: '',
  paymentId: 'p1',
  reason: 'OVERPAYMENT',
  reasonDetail: '',
  requestedFen: 50_000,
  approvedFen: 0,
  refundedFen: 0,
  method: 'ORIGINAL_ROUTE',
  payeeName: '',
  payeeBankName: '',
  payeeMaskedAccount: '',
  status,
  applicantName: '演示管理员',
  applyTime: '',
  reviewerName: '',
  reviewTime: '',
  rejectReason: '',
  confirmedBy: '',
  confirmTime: '',
  completeTime: '',
  transactionNo: '',
  failureReason: '',
  attachments: [],
  ...over,
});

let fetchMock: ReturnType<typeof vi.fn>;
let current: ReturnType<typeof refund>;
beforeEach(() => {
  current = refund('PENDING_REVIEW');
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(true));
    if (url === '/api/v1/finance/refunds/r1') return ok(current);
    if (url === '/api/v1/finance/b2b/refunds/r1/confirm' && init?.method === 'POST') return ok(refund('PROCESSING', { approvedFen: 50_000 }));
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('refund confirmation (billRefundSure)', () => {
  it('confirms a refund under review for the amount requested (no operator review approves it first)', async () => {
    renderWithProviders(<BillRefundSurePage b2b />, { route: ROUTE });
    const confirm = await screen.findByTestId('refund-confirm');
    expect(confirm).toHaveTextContent('确认退款 ¥500.00');
    fireEvent.click(confirm);
    await waitFor(() => expect(calls(fetchMock, 'POST', '/api/v1/finance/b2b/refunds/r1/confirm')).toHaveLength(1));
    const [post] = calls(fetchMock, 'POST', '/api/v1/finance/b2b/refunds/r1/confirm');
    expect(bodyOf(post)).toMatchObject({ expectedAmountFen: 50_000, method: 'ORIGINAL_ROUTE' });
    expect(keyOf(post)).toMatch(/\S{16,}/);
  });

  it('offers nothing to confirm once the refund is paying out', async () => {
    current = refund('PROCESSING', { approvedFen: 50_000 });
    renderWithProviders(<BillRefundSurePage b2b />, { route: ROUTE });
    expect(await screen.findByTestId('refund-not-awaiting')).toBeInTheDocument();
    expect(screen.queryByTestId('refund-confirm')).not.toBeInTheDocument();
  });
});
