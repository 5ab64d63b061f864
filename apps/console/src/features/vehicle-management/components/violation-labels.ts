/** The violation code lists (typed by the generated API enums) and their tag colours. */
import type { components } from '@/lib/api/schema';

export type ViolationStatus = components['schemas']['ViolationStatus'];

/** The states a violation moves through, in order (HANDLING is the contract's, never stored, so not offered). */
export const VIOLATION_STATUSES: readonly ViolationStatus[] = [
  'UNHANDLED',
  'HANDLED',
  'PAID',
];

export const VIOLATION_COLORS: Record<ViolationStatus, string> = {
  UNHANDLED: 'error',
  HANDLING: 'processing',
  HANDLED: 'warning',
  PAID: 'success',
};
