/** Field checks of spec §5. */

/** Empty, or 11 digits starting with 1. */
export function isValidPhone(value: string | undefined | null): boolean {
  return !value || /^1\d{10}$/.test(value);
}

/** http, https or ftp URL. */
export function isValidUrl(value: string): boolean {
  return /^(https?|ftp):\/\/[^\s/$.?#][^\s]*$/i.test(value);
}

/** Form normaliser: inputs are trimmed while typing. */
export const trimInput = (value: unknown) => (typeof value === 'string' ? value.trim() : value);
