import type { FormRule } from 'antd';
import { SCOPE_CUSTOM, SCOPE_FROM_ROLES } from './data-scope';
import { isValidPasswordLength, isValidPhone, userCreateBody, userFormRules, userUpdateBody, USER_NAME_PATTERN } from './user-form';
import { ORG_CODE_PATTERN } from './org-form';

const t = (key: string) => key;

/** Runs antd rules the way Form.Item does, giving the first message. */
async function firstError(rules: FormRule[], value: unknown): Promise<string | undefined> {
  for (const rule of rules) {
    if (typeof rule === 'function') throw new Error('rules here are plain objects');
    const r = rule;
    if (r.required && (value === undefined || value === '' || (Array.isArray(value) && !value.length))) return String(r.message);
    if (value === undefined || value === '') continue;
    if (r.pattern && !r.pattern.test(String(value))) return String(r.message);
    if (r.validator) {
      try {
        await r.validator(r as never, value, () => undefined);
      } catch (e) {
        return (e as Error).message;
      }
    }
  }
  return undefined;
}

describe('user form', () => {
  const rules = userFormRules(t);

  it('checks the phone: required, then 11 digits starting with 1 (请输入正确的手机号)', async () => {
    expect(await firstError(rules.phone, '')).toBe('login.phoneRequired');
    expect(await firstError(rules.phone, '2380013800')).toBe('login.phoneInvalid');
    expect(await firstError(rules.phone, '1380013800')).toBe('login.phoneInvalid');
    expect(await firstError(rules.phone, '138001380001')).toBe('login.phoneInvalid');
    expect(await firstError(rules.phone, '13800138000')).toBeUndefined();
    expect(isValidPhone('13800138000')).toBe(true);
  });

  it('takes an optional initial password of 8 to 20 characters', async () => {
    expect(await firstError(rules.password, undefined)).toBeUndefined();
    expect(await firstError(rules.password, 'Short1!')).toBe('password.length');
    expect(await firstError(rules.password, 'x'.repeat(21))).toBe('password.length');
    expect(await firstError(rules.password, 'Init@2026')).toBeUndefined();
    expect(isValidPasswordLength('x'.repeat(20))).toBe(true);
  });

  it('requires name, account and organisation; accounts are plain characters', async () => {
    expect(await firstError(rules.name, '')).toBe('systemSettings.user.nameRequired');
    expect(await firstError(rules.userName, '')).toBe('login.usernameRequired');
    expect(await firstError(rules.userName, 'li lei')).toBe('systemSettings.user.userNameInvalid');
    expect(await firstError(rules.orgId, undefined)).toBe('systemSettings.user.orgRequired');
    expect(USER_NAME_PATTERN.test('li.lei@fleet-1_a')).toBe(true);
  });

  it('builds the create body with roles, scope and password', () => {
    expect(
      userCreateBody({ name: '李雷', userName: 'lilei', phone: '13800138000', orgId: 'o1', roleIds: ['r1'], scope: { kind: SCOPE_CUSTOM, orgIds: ['o1', 'o2'] }, password: 'Init@2026' }),
    ).toEqual({ name: '李雷', userName: 'lilei', phone: '13800138000', orgId: 'o1', roleIds: ['r1'], dataScope: 4, dataScopeOrgIds: ['o1', 'o2'], password: 'Init@2026' });
  });

  it('sends no account or password on edit, and no scope kind when it comes from the roles', () => {
    expect(userUpdateBody({ name: '李雷', userName: 'x', phone: 'y', orgId: 'o1', scope: { kind: SCOPE_FROM_ROLES }, password: 'p' })).toEqual({
      name: '李雷',
      orgId: 'o1',
      roleIds: [],
      phone: '',
      dataScope: null,
      dataScopeOrgIds: [],
    });
  });

  it('sends a phone on edit only when the administrator typed a new full number', () => {
    const values = { name: '李雷', orgId: 'o1', roleIds: ['r1'] };
    expect(userUpdateBody({ ...values, phone: '138****8000' }, '138****8000').phone).toBe('');
    expect(userUpdateBody({ ...values, phone: '13900139000' }, '138****8000').phone).toBe('13900139000');
  });

  it('needs at least one role', async () => {
    expect(await firstError(rules.roleIds, [])).toBe('systemSettings.user.rolesRequired');
    expect(await firstError(rules.roleIds, ['r1'])).toBeUndefined();
  });

  it('accepts organisation codes of 1 to 32 letters, digits, - and _', () => {
    expect(ORG_CODE_PATTERN.test('HQ-east_01')).toBe(true);
    expect(ORG_CODE_PATTERN.test('华东')).toBe(false);
    expect(ORG_CODE_PATTERN.test('x'.repeat(33))).toBe(false);
  });
});
