import { opensAt } from './customer-service';

describe('customer service opening time (Asia/Shanghai)', () => {
  const closed = (nextOpenTime: string) => ({ chatAvailable: false, nextOpenTime });

  it('says nothing while chat is open', () => {
    expect(opensAt({ chatAvailable: true, nextOpenTime: '' })).toBeUndefined();
  });

  it('opens later today before 08:00 China time', () => {
    // 06:30 in Shanghai is 22:30 UTC the day before.
    const now = new Date('2026-11-22T22:30:00Z');
    expect(opensAt(closed('2026-11-23T08:00:00+08:00'), now)).toEqual({ key: 'customer.opensToday', time: '08:00', date: '2026-11-23' });
  });

  it('opens tomorrow after 22:00 China time', () => {
    const now = new Date('2026-11-23T14:30:00Z'); // 22:30 in Shanghai
    expect(opensAt(closed('2026-11-24T08:00:00+08:00'), now)?.key).toBe('customer.opensTomorrow');
  });

  it('gives a date further out, and nothing for a missing time', () => {
    const now = new Date('2026-11-23T14:30:00Z');
    expect(opensAt(closed('2026-11-26T08:00:00+08:00'), now)).toMatchObject({ key: 'customer.opensOn', date: '2026-11-26' });
    expect(opensAt(closed(''), now)).toBeUndefined();
  });
});
