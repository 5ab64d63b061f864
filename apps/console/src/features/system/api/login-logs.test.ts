import dayjs from 'dayjs';
import { loginLogQuery, toServerTime } from './login-logs';

describe('login log filters', () => {
  it('maps the filter bar to the list parameters, leaving blanks out', () => {
    expect(loginLogQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    const q = loginLogQuery({ loginType: 2, succeeded: 'failure', principal: '  demo ', startTime: '2026-11-01 00:00:00', endTime: '2026-11-21 23:59:59' }, 3, 50);
    expect(q).toMatchObject({ page: 3, size: 50, loginType: 2, succeeded: false, principal: 'demo' });
    expect(dayjs(q.startTime).valueOf()).toBe(dayjs('2026-11-01 00:00:00').valueOf());
    expect(q.endTime).toMatch(/^2026-11-21T23:59:59[+-]\d\d:\d\d$/);
    expect(loginLogQuery({ succeeded: 'success', loginType: 9, principal: '   ' }, 1, 20)).toEqual({ page: 1, size: 20, succeeded: true });
  });

  it('sends times with this browser offset (RFC 3339), nothing for blanks', () => {
    expect(toServerTime('2026-11-01 08:30:00')).toMatch(/^2026-11-01T08:30:00([+-]\d\d:\d\d|Z)$/);
    expect(toServerTime('')).toBeUndefined();
    expect(toServerTime(undefined)).toBeUndefined();
    expect(toServerTime('not a time')).toBeUndefined();
  });
});
