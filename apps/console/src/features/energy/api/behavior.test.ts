import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { behaviorQuery, defaultBehaviorRange, rangeProblem, vehicleBehaviorQuery } from './behavior';
import { generateKind } from './statements';

describe('rangeProblem', () => {
  it('needs both ends', () => {
    expect(rangeProblem(undefined, '2026-11-20')).toBe('required');
    expect(rangeProblem('2026-11-01', '')).toBe('required');
  });
  it('takes at most 92 days, both ends included', () => {
    expect(rangeProblem('2026-01-01', '2026-04-02')).toBeUndefined(); // 92 days
    expect(rangeProblem('2026-01-01', '2026-04-03')).toBe('tooLong'); // 93 days
  });
  it('accepts the default range', () => {
    const [start, end] = defaultBehaviorRange(dayjs('2026-11-25'));
    expect([start, end]).toEqual(['2026-10-27', '2026-11-25']);
    expect(rangeProblem(start, end)).toBeUndefined();
  });
});

describe('behaviorQuery', () => {
  it('reads organisations, plates and the range from the URL filters; the vehicle list adds paging', () => {
    const filters = { orgId: ['o1', 'o2'], plate: ['沪A10001'], startTimeStart: '2026-11-01', startTimeEnd: '2026-11-20' };
    expect(behaviorQuery(filters)).toEqual({ orgId: ['o1', 'o2'], plate: ['沪A10001'], startTimeStart: '2026-11-01', startTimeEnd: '2026-11-20' });
    expect(vehicleBehaviorQuery(filters, 2, 20)).toMatchObject({ page: 2, size: 20, orgId: ['o1', 'o2'] });
    expect(behaviorQuery({})).toEqual({ orgId: [], plate: [], startTimeStart: undefined, startTimeEnd: undefined });
  });
});

describe('generateKind', () => {
  const now = dayjs('2026-11-25T10:00:00');
  it('builds this month as a draft, a closed month as its statement, and refuses a future month', () => {
    expect(generateKind('2026-11', now)).toBe('draft');
    expect(generateKind('2026-10', now)).toBe('closed');
    expect(generateKind('2025-12', now)).toBe('closed');
    expect(generateKind('2026-12', now)).toBe('future');
  });
});
