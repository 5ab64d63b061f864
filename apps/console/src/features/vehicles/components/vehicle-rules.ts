/**
 * Form rules of vehicle assets (issue 9, console spec §5): Chinese plates (7 characters,
 * or 8 for new-energy vehicles) and 17-character VINs with their check digit.
 * The server checks the same and has the last word; these give the answer while typing.
 */
import type { FormRule } from 'antd';
import { isValidPhone } from '@/lib/validators';

type Translate = (key: string) => string;

const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼';
/** Serial characters: digits and capital letters except I and O. */
const SERIAL = '[A-HJ-NP-Z0-9]';
/** New-energy letters: D, A, B, C, E pure electric; F, G, H, J, K others. */
const NEW_ENERGY = '[DABCEFGHJK]';
const HEAD = `[${PROVINCES}][A-HJ-NP-Z]`;
const PLATE_PATTERNS = [
  new RegExp(`^${HEAD}${SERIAL}{5}$`), // 粤B12345
  new RegExp(`^${HEAD}${SERIAL}{4}[挂学警港澳]$`), // 沪C1234挂
  new RegExp(`^${HEAD}${NEW_ENERGY}${SERIAL}\\d{4}$`), // 粤BD12345 (small new-energy)
  new RegExp(`^${HEAD}\\d{5}${NEW_ENERGY}$`), // 粤B12345D (large new-energy)
];

/** A plate as it is stored: upper case, without spaces or the middle dot. */
export function normalisePlate(value: string): string {
  return value.replace(/[\s·.]/g, '').toUpperCase();
}

export function isValidPlate(value: string): boolean {
  const plate = normalisePlate(value);
  return PLATE_PATTERNS.some((p) => p.test(plate));
}

/** An 8-character (new-energy) plate. */
export const isNewEnergyPlate = (value: string) => isValidPlate(value) && [...normalisePlate(value)].length === 8;

const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
const VIN_LETTERS: Record<string, number> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9, S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
const vinValue = (c: string) => (/\d/.test(c) ? Number(c) : VIN_LETTERS[c]);

export type VinProblem = 'format' | 'checkDigit';

/** 17 letters or digits without I, O, Q, and the check digit (9th) right. */
export function vinProblem(value: string): VinProblem | undefined {
  const vin = value.trim().toUpperCase();
  if (!/^[A-HJ-NPR-Z0-9]{17}$/.test(vin)) return 'format';
  const sum = [...vin].reduce((acc, c, i) => acc + vinValue(c) * VIN_WEIGHTS[i], 0);
  const check = sum % 11 === 10 ? 'X' : String(sum % 11);
  return vin[8] === check ? undefined : 'checkDigit';
}

const rule = (ok: (v: string) => boolean, message: string): FormRule => ({
  validator: (_, v: string | undefined) => (!v || ok(v) ? Promise.resolve() : Promise.reject(new Error(message))),
});

/** Plate: required, then the plate format. */
export const plateRules = (t: Translate): FormRule[] => [
  { required: true, whitespace: true, message: t('vehicles.rules.plateRequired') },
  rule(isValidPlate, t('vehicles.rules.plateInvalid')),
];

/** VIN: required, 17 characters, check digit. */
export const vinRules = (t: Translate): FormRule[] => [
  { required: true, whitespace: true, message: t('vehicles.rules.vinRequired') },
  rule((v) => vinProblem(v) !== 'format', t('vehicles.rules.vinInvalid')),
  rule((v) => vinProblem(v) !== 'checkDigit', t('vehicles.rules.vinCheckDigit')),
];

/** Phone: optional unless `required`, 11 digits starting with 1. */
export const mobileRules = (t: Translate, required = false): FormRule[] => [
  ...(required ? [{ required: true, message: t('login.phoneRequired') }] : []),
  rule((v) => isValidPhone(v), t('login.phoneInvalid')),
];
