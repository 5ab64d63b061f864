/**
 * Form rules of a driver, mirroring the vehicle service's checks (its
 * `DriverDraft::parse`): name 1–20 characters, mainland mobile, 18-character
 * resident ID number with its check character, licence class and expiry
 * required, expiry after the first licence date, first licence date not in the
 * future, the ID card's end from 1990 to 20 years ahead, length limits. The server has the last word; these answer while typing.
 */
import type { FormRule } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { mobileRules } from './vehicle-rules';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Length limits of the service (characters). */
export const DRIVER_LIMITS = { name: 20, employeeNo: 32, address: 100, remark: 200 } as const;

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = ['1', '0', 'X', '9', '8', '7', '6', '5', '4', '3', '2'];

export type IdNumberProblem = 'format' | 'checkDigit';

/** GB 11643: 17 digits, a real birth date (19xx or later) at 7–14, and the MOD 11-2 check character. */
export function idNumberProblem(value: string): IdNumberProblem | undefined {
  const id = value.trim().toUpperCase();
  if (!/^\d{17}[\dX]$/.test(id)) return 'format';
  const [y, m, d] = [Number(id.slice(6, 10)), Number(id.slice(10, 12)), Number(id.slice(12, 14))];
  const birth = new Date(y, m - 1, d);
  const realDate = birth.getFullYear() === y && birth.getMonth() === m - 1 && birth.getDate() === d;
  if (y < 1900 || !realDate) return 'format';
  const sum = [...id.slice(0, 17)].reduce((acc, c, i) => acc + Number(c) * ID_WEIGHTS[i], 0);
  return ID_CHECK[sum % 11] === id[17] ? undefined : 'checkDigit';
}

const rule = (ok: (v: string) => boolean, message: string): FormRule => ({
  validator: (_, v: string | undefined) => (!v || ok(v) ? Promise.resolve() : Promise.reject(new Error(message))),
});

const tooLong = (t: Translate, label: string, max: number): FormRule => ({ max, message: t('vehicles.driver.rules.tooLong', { label, max }) });

/** Name: required, at most 20 characters. */
export const driverNameRules = (t: Translate): FormRule[] => [
  { required: true, whitespace: true, message: t('vehicles.driver.rules.nameRequired') },
  tooLong(t, t('vehicles.driver.name'), DRIVER_LIMITS.name),
];

/** Phone: required on create; on edit an empty one keeps the stored number (the console only sees it masked). */
export const driverPhoneRules = (t: Translate, editing: boolean): FormRule[] => mobileRules(t, !editing);

/** ID number: required on create (empty keeps the stored one on edit), format, then check character. */
export const idNumberRules = (t: Translate, editing: boolean): FormRule[] => [
  ...(editing ? [] : [{ required: true, whitespace: true, message: t('vehicles.driver.rules.idNumberRequired') }]),
  rule((v) => idNumberProblem(v) !== 'format', t('vehicles.driver.idNumberInvalid')),
  rule((v) => idNumberProblem(v) !== 'checkDigit', t('vehicles.driver.rules.idNumberCheckDigit')),
];

export const employeeNoRules = (t: Translate): FormRule[] => [tooLong(t, t('vehicles.driver.employeeNo'), DRIVER_LIMITS.employeeNo)];
export const addressRules = (t: Translate): FormRule[] => [tooLong(t, t('vehicles.driver.address'), DRIVER_LIMITS.address)];
export const remarkRules = (t: Translate): FormRule[] => [tooLong(t, t('vehicles.fields.remark'), DRIVER_LIMITS.remark)];

export const licenceClassRules = (t: Translate): FormRule[] => [{ required: true, message: t('vehicles.driver.rules.licenceClassRequired') }];

type MaybeDay = Dayjs | null | undefined;

/** The first licence date may be today or earlier. */
export const firstIssueInFuture = (first: MaybeDay, today: Dayjs = dayjs()) => !!first && first.isAfter(today, 'day');

/** The expiry must fall on a later day than the first licence date. */
export const expiryNotAfterFirstIssue = (first: MaybeDay, expire: MaybeDay) => !!first && !!expire && !expire.isAfter(first, 'day');

export const firstIssueRules = (t: Translate): FormRule[] => [
  { validator: (_, v: MaybeDay) => (firstIssueInFuture(v) ? Promise.reject(new Error(t('vehicles.driver.rules.firstIssueInFuture'))) : Promise.resolve()) },
];

/** Expiry: required, and after the first licence date (re-checked when that changes: `dependencies`). */
export const licenceExpireRules = (t: Translate): FormRule[] => [
  { required: true, message: t('vehicles.driver.rules.licenceExpireRequired') },
  ({ getFieldValue }) => ({
    validator: (_, v: MaybeDay) =>
      expiryNotAfterFirstIssue(getFieldValue('licenceFirstIssueTime') as MaybeDay, v)
        ? Promise.reject(new Error(t('vehicles.driver.rules.licenceExpireBeforeFirstIssue')))
        : Promise.resolve(),
  }),
];

/** The ID card's end as the service accepts it: from 1990, at most 20 years ahead (the longest fixed term). */
export function idCardExpireProblem(end: MaybeDay, today: Dayjs = dayjs()): 'tooEarly' | 'tooLate' | undefined {
  if (!end) return undefined;
  if (end.year() < 1990) return 'tooEarly';
  return end.isAfter(today.add(20, 'year'), 'day') ? 'tooLate' : undefined;
}

/** ID card end: optional (a long-term card has none), within the service's range. */
export const idCardExpireRules = (t: Translate): FormRule[] => [
  {
    validator: (_, v: MaybeDay) => {
      const problem = idCardExpireProblem(v);
      return problem === 'tooEarly'
        ? Promise.reject(new Error(t('vehicles.driver.rules.idCardExpireTooEarly')))
        : problem === 'tooLate'
          ? Promise.reject(new Error(t('vehicles.driver.rules.idCardExpireTooLate')))
          : Promise.resolve();
    },
  },
];
