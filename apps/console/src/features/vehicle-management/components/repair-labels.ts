/** The repair code lists (typed by the generated API enums), their tag colours and console paths. */
import type { components } from '@/lib/api/schema';

type S = components['schemas'];
export type RepairOrderStatus = S['RepairOrderStatus'];
export type RepairKind = S['RepairKind'];
export type RepairItemKind = S['RepairItemKind'];
export type RepairStatementStatus = S['RepairStatementStatus'];
export type RepairBillStatus = S['RepairBillStatus'];

export const ORDER_STATUSES: readonly RepairOrderStatus[] = [
  'AWAITING_QUOTE',
  'QUOTED',
  'AWAITING_APPROVAL',
  'IN_REPAIR',
  'COMPLETED',
  'SETTLED',
  'CANCELLED',
];

export const ORDER_COLORS: Record<RepairOrderStatus, string> = {
  AWAITING_QUOTE: 'default',
  QUOTED: 'warning',
  AWAITING_APPROVAL: 'processing',
  IN_REPAIR: 'blue',
  COMPLETED: 'success',
  SETTLED: 'green',
  CANCELLED: 'default',
};

export const REPAIR_KINDS: readonly RepairKind[] = [
  'MAINTENANCE',
  'REPAIR',
  'ACCIDENT_REPAIR',
  'TIRE',
  'BATTERY',
];

export const ITEM_KINDS: readonly RepairItemKind[] = [
  'PART',
  'LABOUR',
  'MATERIAL',
  'OTHER',
];

export const STATEMENT_STATUSES: readonly RepairStatementStatus[] = [
  'PENDING_CONFIRMATION',
  'DISPUTED',
  'BILLED',
];

export const STATEMENT_COLORS: Record<RepairStatementStatus, string> = {
  PENDING_CONFIRMATION: 'warning',
  CONFIRMED: 'processing',
  DISPUTED: 'error',
  BILLED: 'success',
};

export const BILL_STATUSES: readonly RepairBillStatus[] = [
  'UNPAID',
  'PARTIALLY_PAID',
  'PAID',
  'CANCELLED',
];

export const BILL_COLORS: Record<RepairBillStatus, string> = {
  UNPAID: 'error',
  PARTIALLY_PAID: 'warning',
  PAID: 'success',
  CANCELLED: 'default',
};

/** Where the maintainment pages open. */
const BASE = '/carManagement/vehicleManagement/maintainment';
export const REPAIR_PATHS = {
  orders: `${BASE}/maintainOrder`,
  create: `${BASE}/orderCreate`,
  detail: `${BASE}/orderDetail`,
  price: `${BASE}/priceConfirm`,
  records: `${BASE}/maintainRecord`,
  recordDetail: `${BASE}/maintainRecordDetail`,
  statements: `${BASE}/statement`,
  statementDetail: `${BASE}/statementDetail`,
  bills: `${BASE}/bill`,
  billDetail: `${BASE}/billDetail`,
} as const;
