/** Code lists and route mapping of usage records (carUsedRecord sub-pages). */
import type { components } from '@/lib/api/schema';
import { enumValues } from '@/lib/enum-values';
import type { UsageKind, UsageStatus } from './vehicle-labels';

export type ReplacementReason = components['schemas']['ReplacementReason'];

export const REPLACEMENT_REASONS = enumValues<ReplacementReason>()('REPAIR', 'ACCIDENT', 'UPGRADE', 'CONTRACT_CHANGE', 'OTHER');

/** The four sub-pages of 用车记录, by route name. */
export const USAGE_ROUTE_KINDS = {
  carRentRecord: 'RENT',
  purchaseRecord: 'PURCHASE',
  carReplaceRecord: 'REPLACEMENT',
  rentForSaleRecord: 'RENT_TO_OWN',
} as const satisfies Record<string, UsageKind>;

export type UsageRouteName = keyof typeof USAGE_ROUTE_KINDS;

export const usageKindOfRoute = (name: string): UsageKind | undefined =>
  Object.hasOwn(USAGE_ROUTE_KINDS, name) ? USAGE_ROUTE_KINDS[name as UsageRouteName] : undefined;

export const usageStatusColor = (status: UsageStatus | null | undefined): string =>
  status ? { PENDING: 'processing', ACTIVE: 'success', ENDED: 'default' }[status] : 'default';

/** Pending and active records still hold their vehicle: they may be edited and ended. */
export const isOpenRecord = (status: UsageStatus | null | undefined) => status === 'PENDING' || status === 'ACTIVE';

/** Purchases have no end date; every other kind runs from start to end. */
export const kindHasEnd = (kind: UsageKind) => kind !== 'PURCHASE';
