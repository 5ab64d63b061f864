import { confirmPasswordError, isValidPasswordLength, isValidPhone, trimInput } from './validators';

describe('form rules (console spec §5)', () => {
  it('accepts an empty phone or 11 digits starting with 1', () => {
    expect(isValidPhone('')).toBe(true);
    expect(isValidPhone(undefined)).toBe(true);
    expect(isValidPhone('13800000001')).toBe(true);
    expect(isValidPhone('23800000001')).toBe(false);
    expect(isValidPhone('1380000000')).toBe(false);
    expect(isValidPhone('138000000012')).toBe(false);
    expect(isValidPhone('1380000000a')).toBe(false);
  });

  it('wants passwords of 8 to 20 characters, leaving empty to the required rule', () => {
    expect(isValidPasswordLength('')).toBe(true);
    expect(isValidPasswordLength('1234567')).toBe(false);
    expect(isValidPasswordLength('12345678')).toBe(true);
    expect(isValidPasswordLength('a'.repeat(20))).toBe(true);
    expect(isValidPasswordLength('a'.repeat(21))).toBe(false);
  });

  it('says 请再次输入密码 for an empty confirmation and 两次输入密码不一致! for a different one', () => {
    expect(confirmPasswordError('', 'Secret@123')).toBe('password.confirmEmpty');
    expect(confirmPasswordError('Secret@124', 'Secret@123')).toBe('password.mismatch');
    expect(confirmPasswordError('Secret@123', 'Secret@123')).toBeUndefined();
  });

  it('trims text while typing and leaves other values alone', () => {
    expect(trimInput('  a b ')).toBe('a b');
    expect(trimInput(5)).toBe(5);
  });
});

describe('feedback contact', () => {
  it('takes a mobile number or an e-mail address, nothing else', async () => {
    const { isPhoneOrEmail } = await import('./validators');
    for (const ok of ['13800000001', 'li.lei@example.com', 'a@b.cn']) expect(isPhoneOrEmail(ok)).toBe(true);
    for (const bad of ['abc', '1380000000', '23800000001', 'a@b', '@b.cn', 'a b@c.cn']) expect(isPhoneOrEmail(bad)).toBe(false);
  });
});
