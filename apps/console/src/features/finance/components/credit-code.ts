/**
 * The unified social credit code (统一社会信用代码, GB 32100-2015): 18
 * characters of 0-9 and A-Y without I, O, S, V and Z, the last a check
 * character over the first 17. A rare legitimate code fails the check (codes
 * issued before the standard settled); the form keeps such a code only after
 * a second confirmation.
 */

const CHARSET = '0123456789ABCDEFGHJKLMNPQRTUWXY';
const WEIGHTS = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28];
const SHAPE = /^[0-9A-HJ-NPQRTUWXY]{18}$/;

export type CreditCodeCheck = 'ok' | 'shape' | 'checkDigit';

/** Whether `code` is a well-formed credit code whose check character matches. */
export function checkCreditCode(code: string): CreditCodeCheck {
  const value = code.trim().toUpperCase();
  if (!SHAPE.test(value)) return 'shape';
  const sum = [...value.slice(0, 17)].reduce((acc, ch, i) => acc + CHARSET.indexOf(ch) * WEIGHTS[i], 0);
  const expected = CHARSET[(31 - (sum % 31)) % 31];
  return value[17] === expected ? 'ok' : 'checkDigit';
}
