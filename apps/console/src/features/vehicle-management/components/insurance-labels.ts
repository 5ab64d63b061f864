/** The insurance code lists (typed by the generated API enums) and their tag colours. */
import type { components } from '@/lib/api/schema';

export type InsuranceKind = components['schemas']['InsuranceKind'];
export type PolicyStatus = components['schemas']['PolicyStatus'];

export const INSURANCE_KINDS: readonly InsuranceKind[] = ['COMPULSORY', 'COMMERCIAL', 'CARRIER_LIABILITY', 'CARGO'];

/** The expiry states a list filters by (SURRENDERED is the contract's, never answered, so not offered). */
export const POLICY_STATUSES: readonly PolicyStatus[] = ['EXPIRED', 'EXPIRING', 'ACTIVE', 'PENDING'];

export const POLICY_COLORS: Record<PolicyStatus, string> = {
  PENDING: 'default',
  ACTIVE: 'success',
  EXPIRING: 'warning',
  EXPIRED: 'error',
  SURRENDERED: 'default',
};

/** Coverage items offered while typing (any other name may be typed). */
export const COVERAGE_SUGGESTIONS = ['机动车损失保险', '第三者责任保险', '车上人员责任保险（司机）', '车上人员责任保险（乘客）', '医疗费用补偿保险'];
