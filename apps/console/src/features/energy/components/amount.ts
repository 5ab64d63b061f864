/**
 * Amounts people type in the money dialogs: yuan with two decimals, positive,
 * at most 100 million, and (when the source's balance is known) at most what it
 * has available. The server checks the same under its lock; these rules only
 * spare a round trip.
 */
import type { FormRule } from 'antd';
import { MAX_YUAN, toFen, yuan } from '@/lib/money';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Why `value` (yuan) is refused, or undefined. */
export function amountError(value: number | null | undefined, t: Translate, availableFen?: number): string | undefined {
  if (value === null || value === undefined || Number.isNaN(value)) return t('energy:common.amountRequired');
  const fen = toFen(value);
  if (fen <= 0) return t('energy:common.amountPositive');
  if (value > MAX_YUAN) return t('energy:common.amountTooLarge', { max: MAX_YUAN });
  if (availableFen !== undefined && fen > availableFen) return t('energy:common.amountOverAvailable', { available: yuan(availableFen) });
  return undefined;
}

/** The antd rule of one amount field. */
export function amountRule(t: Translate, availableFen?: () => number | undefined): FormRule {
  return {
    validator: (_, value: number | null | undefined) => {
      const error = amountError(value, t, availableFen?.());
      return error ? Promise.reject(new Error(error)) : Promise.resolve();
    },
  };
}

/** Input props shared by the amount fields: two decimals, no negative numbers. */
export const AMOUNT_INPUT = { min: 0, precision: 2, step: 100, style: { width: '100%' } } as const;
