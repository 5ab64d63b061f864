/** Code lists of charging (select options, tags), tied to the generated API enums, and the units people read. */
import { codeLabel as codeLabelOf, codeOptions as codeOptionsOf, codesOf } from '@/lib/codes';
import { enumValues } from '@/lib/enum-values';
import type { components } from '@/lib/api/schema';
import { yuan } from '@/lib/money';

type Schemas = components['schemas'];
export type ChargingAccountKind = Schemas['ChargingAccountKind'];
export type ChargingAccountStatus = Schemas['ChargingAccountStatus'];
export type AllocationDirection = Schemas['AllocationDirection'];
export type ChargingCardKind = Schemas['ChargingCardKind'];
export type CardHolderKind = Schemas['CardHolderKind'];
export type ChargingCardStatus = Schemas['ChargingCardStatus'];
export type BudgetPeriod = Schemas['BudgetPeriod'];
export type CardAmountChangeKind = Schemas['CardAmountChangeKind'];
export type StartMethod = Schemas['StartMethod'];
export type ConnectorType = Schemas['ConnectorType'];
export type ChargingSessionStatus = Schemas['ChargingSessionStatus'];
export type PlateScanResult = Schemas['PlateScanResult'];
export type ReconciliationStatus = Schemas['ReconciliationStatus'];
export type OpenApplicationStatus = Schemas['ChargingOpenApplicationStatus'];

export const ACCOUNT_STATUSES = enumValues<ChargingAccountStatus>()('ACTIVE', 'FROZEN', 'CLOSED');
export const ALLOCATION_DIRECTIONS = enumValues<AllocationDirection>()('ALLOCATE', 'RECLAIM');
export const CARD_KINDS = enumValues<ChargingCardKind>()('PHYSICAL', 'VIRTUAL');
export const HOLDER_KINDS = enumValues<CardHolderKind>()('VEHICLE', 'DRIVER');
export const CARD_STATUSES = enumValues<ChargingCardStatus>()('ACTIVE', 'FROZEN', 'LOST', 'CANCELLED');
export const BUDGET_PERIODS = enumValues<BudgetPeriod>()('NONE', 'DAILY', 'WEEKLY', 'MONTHLY');
export const CHANGE_KINDS = enumValues<CardAmountChangeKind>()('TOP_UP', 'WITHDRAW', 'CONSUME', 'REFUND', 'CANCEL_RETURN');
export const START_METHODS = enumValues<StartMethod>()('CARD_SWIPE', 'APP_SCAN', 'PLATE_SCAN');
export const SESSION_STATUSES = enumValues<ChargingSessionStatus>()('CHARGING', 'SETTLED', 'ABNORMAL', 'REFUNDED');
export const SCAN_RESULTS = enumValues<PlateScanResult>()('STARTED', 'NOT_REGISTERED', 'CARD_UNAVAILABLE', 'INSUFFICIENT_BALANCE', 'BUDGET_EXCEEDED', 'PILE_FAILED');
export const STATEMENT_STATUSES = enumValues<ReconciliationStatus>()('DRAFT', 'GENERATING', 'PENDING_CONFIRMATION', 'CONFIRMED', 'DISPUTED');
export const APPLICATION_STATUSES = enumValues<OpenApplicationStatus>()('PENDING', 'CONTACTED', 'APPROVED', 'REJECTED');

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Select options of a code list, labelled from `energy:codes.<group>.<code>`. */
export const codeOptions = (t: Translate, group: string, codes: readonly string[]) => codeOptionsOf(t, `energy:codes.${group}`, codes);

/** The label of one code ('' for none or unknown: the table shows '--'). */
export const codeLabel = (t: Translate, group: string, code: string | null | undefined) => codeLabelOf(t, `energy:codes.${group}`, code);

export { codesOf };

/** Tag colours by state. */
export const CARD_STATUS_COLORS: Record<ChargingCardStatus, string> = { ACTIVE: 'success', FROZEN: 'warning', LOST: 'error', CANCELLED: 'default' };
export const ACCOUNT_STATUS_COLORS: Record<ChargingAccountStatus, string> = { ACTIVE: 'success', FROZEN: 'warning', CLOSED: 'default' };
export const SESSION_STATUS_COLORS: Record<ChargingSessionStatus, string> = { CHARGING: 'processing', SETTLED: 'success', ABNORMAL: 'error', REFUNDED: 'default' };
export const SCAN_RESULT_COLORS: Record<PlateScanResult, string> = {
  STARTED: 'success',
  NOT_REGISTERED: 'default',
  CARD_UNAVAILABLE: 'warning',
  INSUFFICIENT_BALANCE: 'warning',
  BUDGET_EXCEEDED: 'warning',
  PILE_FAILED: 'error',
};
export const STATEMENT_STATUS_COLORS: Record<ReconciliationStatus, string> = { DRAFT: 'default', GENERATING: 'processing', PENDING_CONFIRMATION: 'warning', CONFIRMED: 'success', DISPUTED: 'error' };
export const APPLICATION_STATUS_COLORS: Record<OpenApplicationStatus, string> = { PENDING: 'processing', CONTACTED: 'warning', APPROVED: 'success', REJECTED: 'error' };

/** Watt-hours as kWh with two decimals ('' for none). */
export const kwh = (wh: number | null | undefined): string => (wh === null || wh === undefined ? '' : (wh / 1000).toFixed(2));

/** A fen per MWh price as yuan per kWh with four decimals (82350 → '0.8235'). */
export const pricePerKwh = (fenPerMwh: number | null | undefined): string => (fenPerMwh ? (fenPerMwh / 100_000).toFixed(4) : '');

/** Signed yuan of a card balance change: money leaving the card shows with a minus. */
export function signedChange(kind: CardAmountChangeKind | null | undefined, amountFen: number): string {
  const out = kind === 'CONSUME' || kind === 'WITHDRAW' || kind === 'CANCEL_RETURN';
  return `${out ? '-' : '+'}${yuan(amountFen)}`;
}

/** Seconds as hours and minutes through `energy:sessions.minutes` ('' for none). */
export function durationText(seconds: number | null | undefined, t: Translate): string {
  if (!seconds) return '';
  return t('energy:sessions.minutes', { h: Math.floor(seconds / 3600), m: Math.floor((seconds % 3600) / 60) });
}

/** SOC at start and end ('' when neither is known). */
export function socText(start: number | null | undefined, end: number | null | undefined): string {
  if ((start === null || start === undefined) && (end === null || end === undefined)) return '';
  const part = (v: number | null | undefined) => (v === null || v === undefined ? '?' : `${v}%`);
  return `${part(start)} → ${part(end)}`;
}
