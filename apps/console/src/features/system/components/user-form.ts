/**
 * The user form (spec §2 userManagement / addUser): field rules and the bodies
 * sent to the gateway. The phone rule is the sign-in form's (spec §5); the
 * initial password follows the password rules (8 to 20 characters).
 */
import type { FormRule } from 'antd';
import { isValidPasswordLength, isValidPhone, phoneRules } from '@/lib/validators';
import type { UserCreateForm, UserUpdateForm } from '../api/users';
import { dataScopeBody, type DataScopeValue } from './data-scope';

type Translate = (key: string) => string;

export interface UserFormValues {
  name: string;
  userName?: string;
  phone?: string;
  orgId: string;
  roleIds?: string[];
  scope?: DataScopeValue;
  password?: string;
}

export const NAME_MAX = 32;
export const USER_NAME_MAX = 32;

/** Account names: letters, digits, '_', '.', '-' and '@'. */
export const USER_NAME_PATTERN = /^[A-Za-z0-9_.@-]+$/;

export { isValidPhone, isValidPasswordLength };

const check = (ok: (v: string) => boolean, message: string): FormRule => ({
  validator: (_, v: string) => (ok(v) ? Promise.resolve() : Promise.reject(new Error(message))),
});

export function userFormRules(t: Translate) {
  return {
    name: [{ required: true, message: t('systemSettings.user.nameRequired') }, { max: NAME_MAX }] as FormRule[],
    userName: [
      { required: true, message: t('login.usernameRequired') },
      { max: USER_NAME_MAX },
      { pattern: USER_NAME_PATTERN, message: t('systemSettings.user.userNameInvalid') },
    ] as FormRule[],
    phone: phoneRules(t),
    orgId: [{ required: true, message: t('systemSettings.user.orgRequired') }] as FormRule[],
    /** Optional: without one the user signs in by SMS code or WeCom only. */
    password: [check(isValidPasswordLength, t('password.length'))] as FormRule[],
  };
}

export function userCreateBody(v: UserFormValues): UserCreateForm {
  return {
    name: v.name,
    userName: v.userName ?? '',
    phone: v.phone ?? '',
    orgId: v.orgId,
    roleIds: v.roleIds ?? [],
    password: v.password ?? '',
    ...dataScopeBody(v.scope),
  };
}

export function userUpdateBody(v: UserFormValues): UserUpdateForm {
  return { name: v.name, orgId: v.orgId, roleIds: v.roleIds ?? [], ...dataScopeBody(v.scope) };
}
