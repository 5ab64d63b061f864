/** The card form's values ↔ the API's card body (yuan ↔ fen, holder by kind). */
import { toFen, toYuan } from '@/lib/money';
import type { ChargingCard, ChargingCardForm } from '../api/cards';
import type { BudgetPeriod, CardHolderKind, ChargingCardKind } from './labels';

export interface CardFormValues {
  orgId?: string;
  accountId?: string;
  kind: ChargingCardKind;
  cardNo?: string;
  holderKind: CardHolderKind;
  vehicleId?: string;
  driverId?: string;
  budgetPeriod: BudgetPeriod;
  budgetLimit?: number | null;
  perSessionLimit?: number | null;
  /** Empty: any station. */
  allowedStationIds?: string[];
  remark?: string;
}

/** A printed card number: 4 to 32 letters or digits. */
export const CARD_NO_PATTERN = /^[A-Za-z0-9]{4,32}$/;

export const NEW_CARD: CardFormValues = { kind: 'PHYSICAL', holderKind: 'VEHICLE', budgetPeriod: 'NONE' };

/** The body a save sends: only the holder of the chosen kind, no budget cap without a period, no number for a virtual card. */
export function cardBody(values: CardFormValues): ChargingCardForm {
  const vehicle = values.holderKind === 'VEHICLE';
  return {
    orgId: values.orgId ?? '',
    accountId: values.accountId ?? '',
    kind: values.kind,
    cardNo: values.kind === 'PHYSICAL' ? (values.cardNo ?? '').trim() : '',
    holderKind: values.holderKind,
    vehicleId: vehicle ? (values.vehicleId ?? '') : '',
    driverId: vehicle ? '' : (values.driverId ?? ''),
    budgetPeriod: values.budgetPeriod,
    budgetLimitFen: values.budgetPeriod === 'NONE' ? 0 : toFen(values.budgetLimit),
    perSessionLimitFen: toFen(values.perSessionLimit),
    allowedStationIds: values.allowedStationIds ?? [],
    remark: (values.remark ?? '').trim(),
  };
}

/** A stored card as the form shows it. */
export function cardFormValues(card: ChargingCard): CardFormValues {
  return {
    orgId: card.orgId || undefined,
    accountId: card.accountId || undefined,
    kind: card.kind ?? 'PHYSICAL',
    cardNo: card.cardNo,
    holderKind: card.holderKind ?? 'VEHICLE',
    vehicleId: card.vehicleId || undefined,
    driverId: card.driverId || undefined,
    budgetPeriod: card.budget.period ?? 'NONE',
    budgetLimit: card.budget.limitFen ? toYuan(card.budget.limitFen) : null,
    perSessionLimit: card.budget.perSessionLimitFen ? toYuan(card.budget.perSessionLimitFen) : null,
    allowedStationIds: card.allowedStationIds,
    remark: card.remark,
  };
}
