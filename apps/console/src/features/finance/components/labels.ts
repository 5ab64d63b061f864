/** The finance code lists (typed by the generated API enums), their tag colours, money and console paths. */
import { routeTree } from '@/config/routes';
import { flatten, resolveTree } from '@/lib/access';
import type { components } from '@/lib/api/schema';
import { yuan } from '@/lib/money';

type S = components['schemas'];
export type BillKind = S['BillKind'];
export type BillStatus = S['BillStatus'];
export type OrderKind = S['OrderKind'];
export type OrderStatus = S['OrderStatus'];
export type PaymentMethod = S['PaymentMethod'];
export type PaymentStatus = S['PaymentStatus'];
export type InvoiceType = S['InvoiceType'];
export type InvoiceApplicationStatus = S['InvoiceApplicationStatus'];
export type InvoiceTitleType = S['InvoiceTitleType'];
export type InvoiceState = S['InvoiceState'];
export type RefundReason = S['RefundReason'];
export type RefundMethod = S['RefundMethod'];
export type RefundStatus = S['RefundStatus'];
export type CouponStatus = S['CouponStatus'];
export type CouponKind = S['CouponKind'];

/** Fen as ¥ with two decimals: 350000 → '¥3,500.00'; '' for none (the table shows '--'). */
export const money = (fen: number | null | undefined) => {
  const text = yuan(fen);
  return text ? `¥${text}` : '';
};

export const BILL_KINDS: readonly BillKind[] = [
  'RENT', 'RENT_TO_OWN_INSTALMENT', 'CHARGING', 'REPAIR', 'INSURANCE', 'VIOLATION_FINE', 'DEPOSIT', 'SERVICE_FEE', 'COMPENSATION', 'ORDER', 'OTHER',
];
export const BILL_STATUSES: readonly BillStatus[] = ['PENDING_CONFIRMATION', 'UNPAID', 'PARTIALLY_PAID', 'PAID', 'CANCELLED'];
export const BILL_COLORS: Record<BillStatus, string> = {
  PENDING_CONFIRMATION: 'warning',
  UNPAID: 'error',
  PARTIALLY_PAID: 'processing',
  PAID: 'success',
  CANCELLED: 'default',
};
export const INVOICE_STATES: readonly InvoiceState[] = ['NOT_INVOICED', 'PARTIALLY_INVOICED', 'INVOICED'];
export const ORDER_KINDS: readonly OrderKind[] = [
  'VEHICLE_RENT', 'VEHICLE_PURCHASE', 'RENT_TO_OWN', 'CHARGING_TOP_UP', 'INSURANCE', 'MAINTENANCE', 'VALUE_ADDED_SERVICE', 'OTHER',
];
export const ORDER_STATUSES: readonly OrderStatus[] = ['PENDING_PAYMENT', 'PAID', 'FULFILLING', 'COMPLETED', 'CANCELLED', 'REFUNDING', 'REFUNDED'];
export const ORDER_COLORS: Record<OrderStatus, string> = {
  PENDING_PAYMENT: 'warning',
  PAID: 'processing',
  FULFILLING: 'blue',
  COMPLETED: 'success',
  CANCELLED: 'default',
  REFUNDING: 'orange',
  REFUNDED: 'default',
};
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['PREPAID_BALANCE', 'ONLINE_BANKING', 'CORPORATE_TRANSFER', 'WECHAT_PAY', 'ALIPAY'];
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['PENDING', 'SUCCEEDED', 'FAILED', 'CLOSED'];
export const PAYMENT_COLORS: Record<PaymentStatus, string> = { PENDING: 'processing', SUCCEEDED: 'success', FAILED: 'error', CLOSED: 'default' };
export const INVOICE_TYPES: readonly InvoiceType[] = ['DIGITAL_GENERAL', 'DIGITAL_SPECIAL', 'PAPER_GENERAL', 'PAPER_SPECIAL'];
export const PAPER_INVOICE_TYPES: readonly InvoiceType[] = ['PAPER_GENERAL', 'PAPER_SPECIAL'];
export const APPLICATION_STATUSES: readonly InvoiceApplicationStatus[] = ['PENDING_REVIEW', 'ISSUING', 'ISSUED', 'MAILED', 'REJECTED', 'CANCELLED'];
export const APPLICATION_COLORS: Record<InvoiceApplicationStatus, string> = {
  PENDING_REVIEW: 'warning',
  ISSUING: 'processing',
  ISSUED: 'success',
  MAILED: 'success',
  REJECTED: 'error',
  CANCELLED: 'default',
};
export const TITLE_TYPES: readonly InvoiceTitleType[] = ['COMPANY', 'INSTITUTION'];
export const REFUND_REASONS: readonly RefundReason[] = ['OVERPAYMENT', 'DEPOSIT_RETURN', 'SERVICE_CANCELLED', 'BILLING_ERROR', 'OTHER'];
export const REFUND_METHODS: readonly RefundMethod[] = ['ORIGINAL_ROUTE', 'BANK_TRANSFER', 'PREPAID_BALANCE'];
export const REFUND_STATUSES: readonly RefundStatus[] = ['PENDING_REVIEW', 'PENDING_CONFIRMATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'CANCELLED', 'FAILED'];
export const REFUND_COLORS: Record<RefundStatus, string> = {
  PENDING_REVIEW: 'warning',
  PENDING_CONFIRMATION: 'warning',
  PROCESSING: 'processing',
  COMPLETED: 'success',
  REJECTED: 'error',
  CANCELLED: 'default',
  FAILED: 'error',
};
export const COUPON_STATUSES: readonly CouponStatus[] = ['AVAILABLE', 'LOCKED', 'USED', 'EXPIRED', 'VOIDED'];
export const COUPON_COLORS: Record<CouponStatus, string> = { AVAILABLE: 'success', LOCKED: 'processing', USED: 'default', EXPIRED: 'default', VOIDED: 'default' };
export const COUPON_KINDS: readonly CouponKind[] = ['AMOUNT_OFF', 'PERCENT_OFF'];

const routes = flatten(resolveTree(routeTree));

/** The console path of a route by its name (config/routes.ts). */
export function pathOf(name: string): string {
  return routes.find((r) => r.name === name)?.fullPath ?? '/';
}

/** A route's path with `?id=`. */
export const withId = (name: string, id: string) => `${pathOf(name)}?id=${encodeURIComponent(id)}`;

/**
 * Where a bill's source record is shown: the usage record of a rent
 * instalment, energy's reconciliation statement, the repair bill, the order.
 * Empty when the bill has no source page.
 */
export function sourcePath(bill: { kind?: BillKind | null; sourceId: string; orderId: string }): string {
  if (bill.orderId) return withId('orderManage', bill.orderId);
  if (!bill.sourceId) return '';
  switch (bill.kind) {
    case 'RENT':
      // A rent instalment's source is `<usage record>:<period's first day>`.
      return withId('carRentRecord', bill.sourceId.split(':')[0]);
    case 'RENT_TO_OWN_INSTALMENT':
      return withId('rentForSaleRecord', bill.sourceId);
    case 'CHARGING':
      return withId('chargeReconciliation', bill.sourceId);
    case 'REPAIR':
      return withId('maintainBillDetail', bill.sourceId);
    default:
      return '';
  }
}
