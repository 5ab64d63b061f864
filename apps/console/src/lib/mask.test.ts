import { maskText, revealNeedsConfirm, SensitiveType } from './mask';

describe('masking (console spec §5)', () => {
  it('never masks empty placeholders', () => {
    expect(maskText('-')).toBe('-');
    expect(maskText('无')).toBe('无');
    expect(maskText('')).toBe('');
    expect(maskText(null)).toBe('');
    expect(maskText(undefined)).toBe('');
  });

  it('treats the number 0 as the text 0', () => {
    expect(maskText(0)).toBe('0');
  });

  describe('centre mode', () => {
    it('leaves under 3 characters unmasked', () => {
      expect(maskText('张三')).toBe('张三');
    });
    it('keeps 1 at each end under 7 characters', () => {
      expect(maskText('王小明')).toBe('王*明');
      expect(maskText('123456')).toBe('1****6');
    });
    it('keeps 2 at each end under 9 characters', () => {
      expect(maskText('1234567')).toBe('12***67');
      expect(maskText('12345678')).toBe('12****78');
    });
    it('keeps 3 at the start and 4 at the end from 9 characters', () => {
      expect(maskText('13800138000')).toBe('138****8000');
      expect(maskText('110101199001011234')).toBe('110***********1234');
    });
  });

  describe('end mode', () => {
    it('leaves up to 7 characters unmasked', () => {
      expect(maskText('1234567', 'end')).toBe('1234567');
    });
    it('keeps 7 at the start up to 12 characters', () => {
      expect(maskText('12345678', 'end')).toBe('1234567*');
      expect(maskText('北京市朝阳区建国路88号', 'end')).toBe('北京市朝阳区建*****');
    });
    it('keeps 9 at the start when longer', () => {
      expect(maskText('6222021234567890123', 'end')).toBe('622202123**********');
    });
  });

  it('asks before revealing document images only', () => {
    expect(revealNeedsConfirm(SensitiveType.IdFront)).toBe(true);
    expect(revealNeedsConfirm(SensitiveType.LicencePhoto)).toBe(true);
    expect(revealNeedsConfirm(SensitiveType.Phone)).toBe(false);
    expect(revealNeedsConfirm(SensitiveType.Address)).toBe(false);
  });
});
