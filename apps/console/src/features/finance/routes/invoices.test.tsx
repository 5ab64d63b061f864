import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import ApplyInvoicePage from './apply-invoice';
import InvoiceHistoryDetailPage from './invoice-history-detail';
import { bill, bodyOf, calls, keyOf, me, ok } from './test-support';

const BASE = '/financialManagement/ticketManagement';
const title = { id: 't1', titleType: 'COMPANY', name: '演示物流有限公司', taxNumber: '9144030071526726XG', registeredAddress: '', registeredPhone: '', bankName: '', bankAccount: '', isDefault: true, audit: {} };
const application = (channel: string) => ({
  id: 'a1',
  applicationNo: 'KP20261129001',
  channel,
  invoiceType: 'DIGITAL_GENERAL',
  status: 'ISSUED',
  title,
  address: null,
  bills: [{ billId: '01', billNo: 'ZD202611000001', kind: 'RENT', period: '2026-11', amountFen: 350_000 }],
  amountFen: 350_000,
  content: '*经营租赁*车辆租金',
  contractNo: 'HT-1',
  purchaseOrderNo: '',
  invoiceRemark: '',
  applicantName: '演示管理员',
  applyTime: '2026-11-29T02:00:00Z',
  reviewTime: '',
  rejectReason: '',
  invoices: [
    { invoiceNumber: '26442000000012345678', invoiceCode: '', amountFen: 321_101, taxFen: 28_899, totalFen: 350_000, taxRateBp: 900, issueTime: '2026-11-29T03:00:00Z', file: { key: 'k', name: 'fp.pdf', contentType: 'application/pdf', sizeBytes: 1 }, fileUrl: '/files/k?sig=1', reversed: false },
  ],
  expressCompany: '',
  trackingNo: '',
  mailedTime: '',
});

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(false));
    if (url.startsWith('/api/v1/finance/invoiceable-bills?'))
      return ok({ list: [bill('01', { status: 'PAID', paidFen: 350_000, outstandingFen: 0, invoiceableFen: 350_000 })], total: 1, totalInvoiceableFen: 350_000 });
    if (url.startsWith('/api/v1/finance/invoice-titles?')) return ok({ list: [title], total: 1 });
    if (url.startsWith('/api/v1/finance/invoice-addresses?')) return ok({ list: [], total: 0 });
    if (url === '/api/v1/finance/invoice-applications' && init?.method === 'POST') return ok(application('STANDARD'));
    if (url === '/api/v1/finance/invoice-applications/a1') return ok(application('STANDARD'));
    if (url === '/api/v1/finance/b2b/invoice-applications/a1') return ok(application('B2B'));
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('invoices (applyInvoice, invoiceHistoryDetail)', () => {
  it('sends the chosen bills first to applyBill', async () => {
    renderWithProviders(<ApplyInvoicePage />, { route: `${BASE}/applyInvoice` });
    expect(await screen.findByTestId('invoice-choose-first')).toBeInTheDocument();
  });

  it('applies for the bills with the default title, the total seen and an Idempotency-Key', async () => {
    renderWithProviders(<ApplyInvoicePage b2b={false} />, { route: `${BASE}/applyInvoiceSubmit?billNos=ZD202611000001` });
    expect(await screen.findByTestId('invoice-total')).toHaveTextContent('¥3,500.00');
    const asked = fetchMock.mock.calls.map(([u]) => String(u)).find((u) => u.startsWith('/api/v1/finance/invoiceable-bills?'));
    expect(asked).toContain('billNos=ZD202611000001');
    fireEvent.click(screen.getByTestId('invoice-submit'));
    await waitFor(() => expect(calls(fetchMock, 'POST', '/api/v1/finance/invoice-applications')).toHaveLength(1));
    const post = calls(fetchMock, 'POST', '/api/v1/finance/invoice-applications')[0];
    expect(bodyOf(post)).toMatchObject({
      invoiceType: 'DIGITAL_GENERAL',
      titleId: 't1',
      bills: [{ billId: '01', amountFen: 350_000 }],
      expectedTotalFen: 350_000,
    });
    expect(keyOf(post)).toMatch(/\S{16,}/);
  });

  it('shows the issued invoice with its PDF link, and the B2B detail asks the B2B route', async () => {
    const { unmount } = renderWithProviders(<InvoiceHistoryDetailPage />, { route: `${BASE}/invoiceHistoryDetail?id=a1` });
    const invoices = await screen.findByTestId('application-invoices');
    expect(invoices).toHaveTextContent('26442000000012345678');
    expect(within(invoices).getByTestId('invoice-pdf')).toHaveAttribute('href', '/files/k?sig=1');
    unmount();
    renderWithProviders(<InvoiceHistoryDetailPage b2b />, { route: `${BASE}/invoiceHistoryB2BDetail?id=a1` });
    expect(await screen.findByText('HT-1')).toBeInTheDocument();
    expect(calls(fetchMock, 'GET', '/api/v1/finance/b2b/invoice-applications/a1')).toHaveLength(1);
  });
});
