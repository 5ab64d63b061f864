/**
 * Finance over the gateway's `/api/v1/finance/…`: orders, bills and payments,
 * monthly bills and the dashboard, invoice titles, addresses and
 * applications, refunds, coupons and the ledger. Money moves (pay, apply for
 * an invoice, refund, confirm a refund) carry an Idempotency-Key the caller
 * keeps until the move succeeds.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import {
  APPLICATION_STATUSES,
  BILL_KINDS,
  BILL_STATUSES,
  COUPON_STATUSES,
  INVOICE_STATES,
  INVOICE_TYPES,
  ORDER_KINDS,
  ORDER_STATUSES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  REFUND_REASONS,
  REFUND_STATUSES,
} from '../components/labels';

type S = components['schemas'];
export type Bill = S['BillBody'];
export type BillLine = S['BillLineBody'];
export type BillPayment = S['BillPaymentBody'];
export type MonthlyBill = S['MonthlyBillBody'];
export type Order = S['OrderBody'];
export type InvoiceTitle = S['InvoiceTitleBody'];
export type InvoiceTitleForm = S['InvoiceTitleForm'];
export type InvoiceAddress = S['InvoiceAddressBody'];
export type InvoiceAddressForm = S['InvoiceAddressForm'];
export type InvoiceApplication = S['InvoiceApplicationBody'];
export type ApplyInvoiceForm = S['ApplyInvoiceForm'];
export type Refund = S['RefundBody'];
export type Coupon = S['CouponBody'];
export type BillDashboard = S['BillDashboardBody'];
type Query<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
export type BillQuery = Query<'list_bills'>;
export type OrderQuery = Query<'list_finance_orders'>;
export type PaymentQuery = Query<'list_bill_payments'>;
export type MonthlyBillQuery = Query<'list_monthly_bills'>;
export type InvoiceableQuery = Query<'list_invoiceable_bills'>;
export type ApplicationQuery = Query<'list_invoice_applications'>;
export type RefundQuery = Query<'list_refunds'>;
export type CouponQuery = Query<'list_coupons'>;
export type PageQuery = { page: number; size: number };

export const FINANCE_KEY = ['finance'] as const;
export const BILLS_KEY = [...FINANCE_KEY, 'bills'] as const;
export const ORDERS_KEY = [...FINANCE_KEY, 'orders'] as const;
export const PAYMENTS_KEY = [...FINANCE_KEY, 'payments'] as const;
export const MONTHLY_KEY = [...FINANCE_KEY, 'monthly'] as const;
export const INVOICEABLE_KEY = [...FINANCE_KEY, 'invoiceable'] as const;
export const APPLICATIONS_KEY = [...FINANCE_KEY, 'applications'] as const;
export const TITLES_KEY = [...FINANCE_KEY, 'titles'] as const;
export const ADDRESSES_KEY = [...FINANCE_KEY, 'addresses'] as const;
export const REFUNDS_KEY = [...FINANCE_KEY, 'refunds'] as const;
export const COUPONS_KEY = [...FINANCE_KEY, 'coupons'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;
const flag = (filters: ListFilters, key: string) => {
  const v = oneOf(filters, key);
  return v === 'true' ? true : v === 'false' ? false : undefined;
};

export const billQuery = (filters: ListFilters, page: number, size: number): BillQuery => ({
  page,
  size,
  billNos: manyOf(filters, 'billNos'),
  orgIds: manyOf(filters, 'orgIds'),
  plateNumbers: manyOf(filters, 'plateNumbers'),
  kinds: codesOf(manyOf(filters, 'kinds'), BILL_KINDS),
  statuses: codesOf(manyOf(filters, 'statuses'), BILL_STATUSES),
  invoiceStates: codesOf(manyOf(filters, 'invoiceStates'), INVOICE_STATES),
  overdue: flag(filters, 'overdue'),
  startMonth: text(filters, 'startMonth'),
  endMonth: text(filters, 'endMonth'),
  dueTimeStart: text(filters, 'dueTimeStart'),
  dueTimeEnd: text(filters, 'dueTimeEnd'),
});

export const orderQuery = (filters: ListFilters, page: number, size: number): OrderQuery => ({
  page,
  size,
  orderNos: manyOf(filters, 'orderNos'),
  orgIds: manyOf(filters, 'orgIds'),
  plateNumbers: manyOf(filters, 'plateNumbers'),
  kinds: codesOf(manyOf(filters, 'kinds'), ORDER_KINDS),
  statuses: codesOf(manyOf(filters, 'statuses'), ORDER_STATUSES),
  contractNo: text(filters, 'contractNo'),
  placedTimeStart: text(filters, 'placedTimeStart'),
  placedTimeEnd: text(filters, 'placedTimeEnd'),
});

export const paymentQuery = (filters: ListFilters, page: number, size: number): PaymentQuery => ({
  page,
  size,
  paymentNo: text(filters, 'paymentNo'),
  methods: codesOf(manyOf(filters, 'methods'), PAYMENT_METHODS),
  statuses: codesOf(manyOf(filters, 'statuses'), PAYMENT_STATUSES),
  createTimeStart: text(filters, 'createTimeStart'),
  createTimeEnd: text(filters, 'createTimeEnd'),
});

export const monthlyQuery = (filters: ListFilters, page: number, size: number): MonthlyBillQuery => ({
  page,
  size,
  startMonth: text(filters, 'startMonth'),
  endMonth: text(filters, 'endMonth'),
  statuses: codesOf(manyOf(filters, 'statuses'), BILL_STATUSES),
  overdue: flag(filters, 'overdue'),
});

export const invoiceableQuery = (filters: ListFilters, page: number, size: number): InvoiceableQuery => ({
  page,
  size,
  billNos: manyOf(filters, 'billNos'),
  kinds: codesOf(manyOf(filters, 'kinds'), BILL_KINDS),
  startMonth: text(filters, 'startMonth'),
  endMonth: text(filters, 'endMonth'),
});

export const applicationQuery = (filters: ListFilters, page: number, size: number): ApplicationQuery => ({
  page,
  size,
  applicationNo: text(filters, 'applicationNo'),
  invoiceNumber: text(filters, 'invoiceNumber'),
  invoiceTypes: codesOf(manyOf(filters, 'invoiceTypes'), INVOICE_TYPES),
  statuses: codesOf(manyOf(filters, 'statuses'), APPLICATION_STATUSES),
  applyTimeStart: text(filters, 'applyTimeStart'),
  applyTimeEnd: text(filters, 'applyTimeEnd'),
});

export const refundQuery = (filters: ListFilters, page: number, size: number): RefundQuery => ({
  page,
  size,
  refundNo: text(filters, 'refundNo'),
  reasons: codesOf(manyOf(filters, 'reasons'), REFUND_REASONS),
  statuses: codesOf(manyOf(filters, 'statuses'), REFUND_STATUSES),
  applyTimeStart: text(filters, 'applyTimeStart'),
  applyTimeEnd: text(filters, 'applyTimeEnd'),
});

export const couponQuery = (filters: ListFilters, page: number, size: number): CouponQuery => ({
  page,
  size,
  statuses: codesOf(manyOf(filters, 'statuses'), COUPON_STATUSES),
});

export const pageQuery = (_: ListFilters, page: number, size: number): PageQuery => ({ page, size });

export const listBills = (query: BillQuery) => api.get('/api/v1/finance/bills', { params: { query } });

export const listOrders = (query: OrderQuery) => api.get('/api/v1/finance/orders', { params: { query } });
export const listPayments = (query: PaymentQuery) => api.get('/api/v1/finance/payments', { params: { query } });
export const listMonthlyBills = (query: MonthlyBillQuery) => api.get('/api/v1/finance/monthly-bills', { params: { query } });
export const listInvoiceableBills = (query: InvoiceableQuery) => api.get('/api/v1/finance/invoiceable-bills', { params: { query } });
export const listApplications = (query: ApplicationQuery) => api.get('/api/v1/finance/invoice-applications', { params: { query } });
export const listTitles = (query: PageQuery) => api.get('/api/v1/finance/invoice-titles', { params: { query } });
export const listAddresses = (query: PageQuery) => api.get('/api/v1/finance/invoice-addresses', { params: { query } });
export const listRefunds = (query: RefundQuery) => api.get('/api/v1/finance/refunds', { params: { query } });
export const listCoupons = (query: CouponQuery) => api.get('/api/v1/finance/coupons', { params: { query } });

/** A list's filters as its export takes them: the page is the export's own. */
const unpaged = <Q extends { page?: number; size?: number }>(query: Q) => ({ ...query, page: undefined, size: undefined });

export const exportBills = (query: BillQuery, options: CallOptions) =>
  api.post('/api/v1/finance/bills/export', { ...options, params: { query: unpaged(query) } });
export const exportOrders = (query: OrderQuery, options: CallOptions) =>
  api.post('/api/v1/finance/orders/export', { ...options, params: { query: unpaged(query) } });
export const exportPayments = (query: PaymentQuery, options: CallOptions) =>
  api.post('/api/v1/finance/payments/export', { ...options, params: { query: unpaged(query) } });
export const exportMonthlyBills = (query: MonthlyBillQuery, options: CallOptions) =>
  api.post('/api/v1/finance/monthly-bills/export', { ...options, params: { query: unpaged(query) } });
export const exportApplications = (query: ApplicationQuery, options: CallOptions) =>
  api.post('/api/v1/finance/invoice-applications/export', { ...options, params: { query: unpaged(query) } });
export const exportRefunds = (query: RefundQuery, options: CallOptions) =>
  api.post('/api/v1/finance/refunds/export', { ...options, params: { query: unpaged(query) } });
export const exportCoupons = (query: CouponQuery, options: CallOptions) =>
  api.post('/api/v1/finance/coupons/export', { ...options, params: { query: unpaged(query) } });

export function useBillDetail(id: string) {
  return useQuery({
    queryKey: [...BILLS_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/finance/bills/{billId}', { params: { path: { billId: id } } }),
    enabled: !!id,
  });
}

export function useOrderDetail(id: string) {
  return useQuery({
    queryKey: [...ORDERS_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/finance/orders/{orderId}', { params: { path: { orderId: id } } }),
    enabled: !!id,
  });
}

export function useMonthlyBillDetail(id: string) {
  return useQuery({
    queryKey: [...MONTHLY_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/finance/monthly-bills/{monthlyBillId}', { params: { path: { monthlyBillId: id } } }),
    enabled: !!id,
  });
}

export const monthlyBillFile = (id: string) =>
  api.get('/api/v1/finance/monthly-bills/{monthlyBillId}/file', { params: { path: { monthlyBillId: id } } });

export function useDashboard() {
  return useQuery({ queryKey: [...FINANCE_KEY, 'dashboard'], queryFn: () => api.get('/api/v1/finance/bill-dashboard') });
}

export function useBalances() {
  return useQuery({ queryKey: [...FINANCE_KEY, 'balances'], queryFn: () => api.get('/api/v1/finance/ledger/balances') });
}

/** The payment as it stands; polled every `intervalMs` while it is PENDING. */
export function usePayment(id: string, intervalMs: number) {
  return useQuery({
    queryKey: [...PAYMENTS_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/finance/payments/{paymentId}', { params: { path: { paymentId: id } } }),
    enabled: !!id,
    refetchInterval: (q) => (q.state.data?.status === 'PENDING' ? intervalMs : false),
  });
}

/** Coupons usable on these bills now (the pay page). */
export function useUsableCoupons(billIds: string[]) {
  return useQuery({
    queryKey: [...COUPONS_KEY, 'usable', billIds],
    queryFn: () => api.get('/api/v1/finance/coupons', { params: { query: { page: 1, size: 100, usableForBillIds: billIds } } }),
    enabled: billIds.length > 0,
  });
}

export function useApplication(id: string, b2b: boolean) {
  return useQuery({
    queryKey: [...APPLICATIONS_KEY, 'detail', id, b2b],
    queryFn: () =>
      b2b
        ? api.get('/api/v1/finance/b2b/invoice-applications/{applicationId}', { params: { path: { applicationId: id } } })
        : api.get('/api/v1/finance/invoice-applications/{applicationId}', { params: { path: { applicationId: id } } }),
    enabled: !!id,
  });
}

export function useRefund(id: string) {
  return useQuery({
    queryKey: [...REFUNDS_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/finance/refunds/{refundId}', { params: { path: { refundId: id } } }),
    enabled: !!id,
  });
}

/** The titles and addresses the apply form picks from (default first). */
export function useInvoiceSettings() {
  const titles = useQuery({ queryKey: [...TITLES_KEY, 'all'], queryFn: () => listTitles({ page: 1, size: 100 }) });
  const addresses = useQuery({ queryKey: [...ADDRESSES_KEY, 'all'], queryFn: () => listAddresses({ page: 1, size: 100 }) });
  return { titles, addresses };
}

/** Every change may touch several finance lists: they are all fetched again. */
function useFinanceChange<Args, Answer>(call: (args: Args) => Promise<Answer>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: call, onSuccess: () => client.invalidateQueries({ queryKey: FINANCE_KEY }) });
}

export const usePayBills = () =>
  useFinanceChange(({ body, idempotencyKey }: { body: S['PayBillsForm']; idempotencyKey: string }) =>
    api.post('/api/v1/finance/payments', { body, idempotencyKey }),
  );

export const useConfirmBills = () =>
  useFinanceChange((body: S['ConfirmBillsForm']) => api.post('/api/v1/finance/bills/confirm', { body }));

export const useCancelOrder = () =>
  useFinanceChange(({ id, reason }: { id: string; reason: string }) =>
    api.post('/api/v1/finance/orders/{orderId}/cancel', { params: { path: { orderId: id } }, body: { reason } }),
  );

export const useApplyInvoice = () =>
  useFinanceChange(({ body, idempotencyKey, b2b }: { body: ApplyInvoiceForm; idempotencyKey: string; b2b: boolean }) =>
    b2b
      ? api.post('/api/v1/finance/b2b/invoice-applications', { body, idempotencyKey })
      : api.post('/api/v1/finance/invoice-applications', { body, idempotencyKey }),
  );

export const useCancelApplication = () =>
  useFinanceChange(({ id, reason }: { id: string; reason: string }) =>
    api.post('/api/v1/finance/invoice-applications/{applicationId}/cancel', { params: { path: { applicationId: id } }, body: { reason } }),
  );

export const useSaveTitle = () =>
  useFinanceChange(({ id, body }: { id?: string; body: InvoiceTitleForm }) =>
    id
      ? api.put('/api/v1/finance/invoice-titles/{titleId}', { params: { path: { titleId: id } }, body })
      : api.post('/api/v1/finance/invoice-titles', { body }),
  );

export const useDeleteTitle = () =>
  useFinanceChange((id: string) => api.delete('/api/v1/finance/invoice-titles/{titleId}', { params: { path: { titleId: id } } }));

export const useSaveAddress = () =>
  useFinanceChange(({ id, body }: { id?: string; body: InvoiceAddressForm }) =>
    id
      ? api.put('/api/v1/finance/invoice-addresses/{addressId}', { params: { path: { addressId: id } }, body })
      : api.post('/api/v1/finance/invoice-addresses', { body }),
  );

export const useDeleteAddress = () =>
  useFinanceChange((id: string) => api.delete('/api/v1/finance/invoice-addresses/{addressId}', { params: { path: { addressId: id } } }));

export const useCreateRefund = () =>
  useFinanceChange(({ body, idempotencyKey }: { body: S['CreateRefundForm']; idempotencyKey: string }) =>
    api.post('/api/v1/finance/refunds', { body, idempotencyKey }),
  );

export const useConfirmRefund = () =>
  useFinanceChange(({ id, body, idempotencyKey, b2b }: { id: string; body: S['ConfirmRefundForm']; idempotencyKey: string; b2b: boolean }) =>
    b2b
      ? api.post('/api/v1/finance/b2b/refunds/{refundId}/confirm', { params: { path: { refundId: id } }, body, idempotencyKey })
      : api.post('/api/v1/finance/refunds/{refundId}/confirm', { params: { path: { refundId: id } }, body, idempotencyKey }),
  );

export const useCancelRefund = () =>
  useFinanceChange(({ id, reason }: { id: string; reason: string }) =>
    api.post('/api/v1/finance/refunds/{refundId}/cancel', { params: { path: { refundId: id } }, body: { reason } }),
  );
