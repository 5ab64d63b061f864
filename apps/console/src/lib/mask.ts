/** Masking of personal data (console spec §5). */

export type MaskMode = 'center' | 'end';

/** Placeholders for "no value" that are shown as they are. */
export const EMPTY_PLACEHOLDERS = ['-', '--', '无'];

const stars = (n: number) => '*'.repeat(Math.max(0, n));

/** Works on code points so CJK and emoji count as one character each. */
function keepEnds(chars: string[], head: number, tail: number): string {
  return chars.slice(0, head).join('') + stars(chars.length - head - tail) + chars.slice(chars.length - tail).join('');
}

/**
 * Centre mode: under 3 chars unmasked; under 7 keep 1 at each end; under 9 keep 2;
 * else keep 3 at the start and 4 at the end. End mode: up to 7 unmasked; up to 12
 * keep the first 7; longer keep the first 9. Empty gives ''; the number 0 is '0'.
 */
export function maskText(value: string | number | null | undefined, mode: MaskMode = 'center'): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  if (text === '' || EMPTY_PLACEHOLDERS.includes(text.trim())) return text;
  const chars = [...text];
  const n = chars.length;
  const joined = chars.join('');
  if (mode === 'end') {
    if (n <= 7) return joined;
    const keep = n <= 12 ? 7 : 9;
    return chars.slice(0, keep).join('') + stars(n - keep);
  }
  if (n < 3) return joined;
  if (n < 7) return keepEnds(chars, 1, 1);
  if (n < 9) return keepEnds(chars, 2, 2);
  return keepEnds(chars, 3, 4);
}

/** Sensitive view types of console spec §3; revealing the document images asks first and is logged. */
export const SensitiveType = {
  Phone: 1,
  IdNumber: 2,
  BankCard: 3,
  IdFront: 4,
  IdBack: 5,
  LicenceFront: 6,
  LicenceBack: 7,
  Address: 8,
  IdPhoto: 9,
  LicencePhoto: 10,
} as const;

const CONFIRM_TYPES: number[] = [4, 5, 6, 7, 9, 10];

export function revealNeedsConfirm(type: number): boolean {
  return CONFIRM_TYPES.includes(type);
}
