import { describe, expect, it } from 'vitest';
import { amountError } from './amount';

const t = (key: string, options?: Record<string, unknown>) => (options ? `${key} ${JSON.stringify(options)}` : key);

describe('amountError', () => {
  it('refuses a missing, zero or negative amount', () => {
    expect(amountError(undefined, t)).toBe('energy:common.amountRequired');
    expect(amountError(0, t)).toBe('energy:common.amountPositive');
    expect(amountError(0.004, t)).toBe('energy:common.amountPositive');
    expect(amountError(-5, t)).toBe('energy:common.amountPositive');
  });

  it('refuses more than the source has available, to the fen', () => {
    expect(amountError(100, t, 10_000)).toBeUndefined();
    expect(amountError(100.01, t, 10_000)).toContain('energy:common.amountOverAvailable');
    expect(amountError(100.01, t, 10_000)).toContain('"available":"100.00"');
  });

  it('refuses more than 100 million yuan', () => {
    expect(amountError(100_000_000.01, t)).toContain('energy:common.amountTooLarge');
    expect(amountError(100_000_000, t)).toBeUndefined();
  });
});
