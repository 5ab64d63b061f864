/**
 * Money: the API speaks fen (integers), people read and type
 * yuan with two decimals.
 */

/** Largest amount the service accepts: 100 million yuan (10^10 fen). */
export const MAX_YUAN = 100_000_000;

/** Fen as yuan with two decimals and thousands separators: 350000 → '3,500.00'; '' for none (the table shows '--'). */
export function yuan(fen: number | null | undefined): string {
  if (fen === null || fen === undefined || !Number.isFinite(fen)) return '';
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(Math.round(fen));
  const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${whole}.${String(abs % 100).padStart(2, '0')}`;
}

/** Typed yuan as fen, rounded to the fen (0.29 → 29, not 28); none is 0. */
export function toFen(yuanValue: number | null | undefined): number {
  return yuanValue === null || yuanValue === undefined || !Number.isFinite(yuanValue) ? 0 : Math.round(yuanValue * 100);
}

/** Stored fen as the yuan a money input shows. */
export function toYuan(fen: number | null | undefined): number | null {
  return fen === null || fen === undefined ? null : fen / 100;
}
