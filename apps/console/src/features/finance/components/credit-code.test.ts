import { checkCreditCode } from './credit-code';

describe('unified social credit code (GB 32100)', () => {
  it('accepts codes whose check character matches, in any case', () => {
    expect(checkCreditCode('9144030071526726XG')).toBe('ok');
    expect(checkCreditCode('91110000802100433B')).toBe('ok');
    expect(checkCreditCode(' 9144030071526726xg ')).toBe('ok');
  });

  it('tells a wrong check character from a malformed code', () => {
    expect(checkCreditCode('9144030071526726XA')).toBe('checkDigit');
    expect(checkCreditCode('911100001000013459')).toBe('checkDigit');
    expect(checkCreditCode('9144030071526726X')).toBe('shape');
    // I, O, S, V and Z are never used.
    expect(checkCreditCode('9144030071526726XO')).toBe('shape');
    expect(checkCreditCode('')).toBe('shape');
  });
});
