import dayjs from 'dayjs';
import { expiryNotAfterFirstIssue, firstIssueInFuture, idNumberProblem } from './driver-rules';

describe('driver form rules (mirroring the vehicle service)', () => {
  it('accepts 18-character ID numbers with a real birth date and the right check character, X in any case', () => {
    expect(idNumberProblem('11010519491231002X')).toBeUndefined();
    expect(idNumberProblem(' 11010519491231002x ')).toBeUndefined();
    expect(idNumberProblem('44030519900101123X')).toBeUndefined();
  });

  it('refuses a wrong check character apart from a malformed number', () => {
    expect(idNumberProblem('110105194912310021')).toBe('checkDigit');
    for (const id of ['11010519491231002', '1101051949123100211', '11010519491331002X', '11010518991231002X', '110105194902300021', 'A1010519491231002X']) {
      expect(idNumberProblem(id), id).toBe('format');
    }
  });

  it('wants the licence expiry on a later day than the first licence date, which may not be after today', () => {
    const today = dayjs('2026-03-10');
    expect(firstIssueInFuture(dayjs('2026-03-10'), today)).toBe(false);
    expect(firstIssueInFuture(dayjs('2026-03-11'), today)).toBe(true);
    expect(firstIssueInFuture(null, today)).toBe(false);
    expect(expiryNotAfterFirstIssue(dayjs('2020-01-01'), dayjs('2020-01-01'))).toBe(true);
    expect(expiryNotAfterFirstIssue(dayjs('2020-01-01'), dayjs('2019-12-31'))).toBe(true);
    expect(expiryNotAfterFirstIssue(dayjs('2020-01-01'), dayjs('2030-01-01'))).toBe(false);
    expect(expiryNotAfterFirstIssue(undefined, dayjs('2030-01-01'))).toBe(false);
  });
});
