/** Field checks of console spec §5, as pure functions and the antd rules built on them. */
import type { FormRule } from 'antd';
import { PASSWORD_MAX, PASSWORD_MIN } from '@/config/constants';

type Translate = (key: string) => string;

/** Empty, or 11 digits starting with 1. */
export function isValidPhone(value: string | undefined | null): boolean {
  return !value || /^1\d{10}$/.test(value);
}

/** http, https or ftp URL. */
/** A mobile number (11 digits from 1) or an e-mail address: the feedback contact (server checks the same). */
export function isPhoneOrEmail(value: string): boolean {
  const v = value.trim();
  return /^1\d{10}$/.test(v) || /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(v);
}

export function isValidUrl(value: string): boolean {
  return /^(https?|ftp):\/\/[^\s/$.?#][^\s]*$/i.test(value);
}

/** Form normaliser: inputs are trimmed while typing. */
export const trimInput = (value: unknown) => (typeof value === 'string' ? value.trim() : value);

/** 8 to 20 characters (an empty value is the required rule's business). */
export function isValidPasswordLength(value: string | undefined | null): boolean {
  return !value || (value.length >= PASSWORD_MIN && value.length <= PASSWORD_MAX);
}

/** The confirmation check: i18n key of the message, or undefined when it matches. */
export function confirmPasswordError(confirm: string | undefined | null, newPassword: string | undefined | null): string | undefined {
  if (!confirm) return 'password.confirmEmpty';
  return confirm === newPassword ? undefined : 'password.mismatch';
}

const check = (ok: (v: string) => boolean, message: string): FormRule => ({
  validator: (_, v: string) => (ok(v) ? Promise.resolve() : Promise.reject(new Error(message))),
});

/** Phone: 请输入手机号, then 请输入正确的手机号. */
export const phoneRules = (t: Translate): FormRule[] => [
  { required: true, message: t('login.phoneRequired') },
  check(isValidPhone, t('login.phoneInvalid')),
];

/**
 * The password forms of console spec §5 (change, and reset by phone): old required; new
 * required and 8–20; confirmation required, 8–20 and equal to the new one.
 */
export const passwordRules = (t: Translate) => {
  const length = check(isValidPasswordLength, t('password.length'));
  return {
    oldPassword: [{ required: true, message: t('password.oldRequired') }] as FormRule[],
    newPassword: [{ required: true, message: t('password.newRequired') }, length] as FormRule[],
    confirmNewPaw: [
      { required: true, message: t('password.confirmRequired') },
      length,
      ({ getFieldValue }) => ({
        validator: (_, value: string) => {
          const error = confirmPasswordError(value, getFieldValue('newPassword'));
          return error ? Promise.reject(new Error(t(error))) : Promise.resolve();
        },
      }),
    ] as FormRule[],
  };
};
