import { cellText, dayRange, detailText, formatTime, formatTimeIn, lastThreeMonthsRange, orgPathIds, previousMonth, rangeLabel, relativeTime, shortNumber, toDate } from './format';

describe('date helpers (console spec §9)', () => {
  it('reads a 10-digit timestamp as seconds', () => {
    expect(toDate(1_700_000_000)?.getTime()).toBe(1_700_000_000_000);
    expect(toDate('1700000000')?.getTime()).toBe(1_700_000_000_000);
    expect(toDate(1_700_000_000_123)?.getTime()).toBe(1_700_000_000_123);
  });

  it('reads RFC 3339 times from the server and local yyyy-MM-dd HH:mm:ss', () => {
    expect(toDate('2026-11-22T00:32:04Z')?.getTime()).toBe(Date.UTC(2026, 10, 22, 0, 32, 4));
    expect(toDate('2026-11-22T08:32:04+08:00')?.getTime()).toBe(Date.UTC(2026, 10, 22, 0, 32, 4));
    expect(toDate('2026-11-22 08:32:04')?.getTime()).toBe(new Date(2026, 10, 22, 8, 32, 4).getTime());
  });

  it('formats year-month-day hour:minute:second by default, zero-padded', () => {
    expect(formatTime(new Date(2024, 0, 5, 3, 4, 5))).toBe('2024-01-05 03:04:05');
  });

  it('names weekdays in Chinese', () => {
    expect(formatTime(new Date(2024, 0, 7), '{a}')).toBe('日');
    expect(formatTime(new Date(2024, 0, 8), '星期{a}')).toBe('星期一');
  });

  it('gives empty text for invalid input', () => {
    expect(formatTime(null)).toBe('');
    expect(formatTime('not a date')).toBe('');
  });

  it('gives relative time in minutes, hours or days', () => {
    const now = new Date(2024, 5, 1, 12, 0, 0).getTime();
    expect(relativeTime(now - 5 * 60_000, now)).toEqual({ count: 5, unit: 'minute' });
    expect(relativeTime(now - 3 * 3_600_000, now)).toEqual({ count: 3, unit: 'hour' });
    expect(relativeTime(now - 2 * 86_400_000, now)).toEqual({ count: 2, unit: 'day' });
  });

  it('gives the previous month as yyyy-MM, previous year for January', () => {
    expect(previousMonth(new Date(2024, 6, 15))).toBe('2024-06');
    expect(previousMonth(new Date(2024, 0, 15))).toBe('2023-12');
  });

  it('ranges from the first day three months back to today, unpadded', () => {
    expect(lastThreeMonthsRange(new Date(2024, 10, 21))).toEqual(['2024-8-1', '2024-11-21']);
    expect(lastThreeMonthsRange(new Date(2024, 1, 5))).toEqual(['2023-11-1', '2024-2-5']);
  });

  it('spans whole days for a date range', () => {
    expect(dayRange('2024-01-01', '2024-01-31')).toEqual(['2024-01-01 00:00:00', '2024-01-31 23:59:59']);
  });
});

describe('number and label helpers (console spec §9)', () => {
  it('shortens numbers with k, M and G', () => {
    expect(shortNumber(999)).toBe('999');
    expect(shortNumber(1_200)).toBe('1.2k');
    expect(shortNumber(2_000_000)).toBe('2M');
    expect(shortNumber(3_450_000_000, 2)).toBe('3.45G');
  });

  it('labels a list by its first and last element', () => {
    expect(rangeLabel([])).toBe('');
    expect(rangeLabel(['A'])).toBe('A');
    expect(rangeLabel(['A', 'B', 'C'])).toBe('A - C');
  });

  it('splits an org path into customer and org ids', () => {
    expect(orgPathIds([])).toEqual({ currentClienteleId: '', orgId: '' });
    expect(orgPathIds(['c1'])).toEqual({ currentClienteleId: 'c1', orgId: '0' });
    expect(orgPathIds(['c1', 'o2', 'o3'])).toEqual({ currentClienteleId: 'c1', orgId: 'o3' });
  });
});

describe('table cell text (console spec §2)', () => {
  it('shows -- for blanks and joins arrays by commas', () => {
    expect(cellText(null)).toBe('--');
    expect(cellText(undefined)).toBe('--');
    expect(cellText('  ')).toBe('--');
    expect(cellText([])).toBe('--');
    expect(cellText(['a', '', 'b'])).toBe('a,b');
    expect(cellText(0)).toBe('0');
  });
});

describe('detail and zoned text', () => {
  it("shows '-' for an empty value in a form or detail, where a table shows '--'", () => {
    expect(detailText('')).toBe('-');
    expect(detailText(null)).toBe('-');
    expect(detailText([])).toBe('-');
    expect(detailText(['a', 'b'])).toBe('a,b');
    expect(detailText(0)).toBe('0');
  });

  it('formats on the Asia/Shanghai wall clock whatever the zone the code runs in', () => {
    expect(formatTimeIn('2026-10-31T16:00:00Z')).toBe('2026-11-01 00:00:00');
    expect(formatTimeIn('2026-11-01T00:00:00+08:00', '{m}-{d} 星期{a}')).toBe('11-01 星期日');
    expect(formatTimeIn('2026-11-01T00:00:00+08:00', '{y}-{m}-{d} {h}:{i}', 'UTC')).toBe('2026-10-31 16:00');
    expect(formatTimeIn(null)).toBe('');
  });
});
