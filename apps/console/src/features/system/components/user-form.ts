/**
 * The user form (console spec §2 userManagement / addUser): field rules and the bodies
 * sent to the gateway. The phone rule is the sign-in form's (console spec §5); the
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
    /** A member without a role would see nothing. */
    roleIds: [{ required: true, type: 'array', min: 1, message: t('systemSettings.user.rolesRequired') }] as FormRule[],
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

/**
 * The edit body. The phone goes only when it is a new, full number (the form
 * shows the masked one until the administrator types another); the server
 * changes the person's sign-in phone with it.
 */
export function userUpdateBody(v: UserFormValues, maskedPhone?: string): UserUpdateForm {
  const phone = v.phone && v.phone !== maskedPhone && isValidPhone(v.phone) ? v.phone : '';
  return { name: v.name, orgId: v.orgId, roleIds: v.roleIds ?? [], phone, ...dataScopeBody(v.scope) };
}
