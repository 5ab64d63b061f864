import dayjs from 'dayjs';
import { hasInitialValue, resetValues, shapeValues, validateMonthRange } from './filter-values';

describe('month range check (console spec §5)', () => {
  it('accepts both empty', () => {
    expect(validateMonthRange([null, null])).toBeUndefined();
    expect(validateMonthRange(undefined)).toBeUndefined();
  });
  it('wants both months once one is chosen: 请选择完整月份', () => {
    expect(validateMonthRange([dayjs('2024-01-01'), null])).toBe('filter.monthIncomplete');
    expect(validateMonthRange([null, '2024-02'])).toBe('filter.monthIncomplete');
  });
  it('refuses a start after the end: 开始时间不允许大于结束时间', () => {
    expect(validateMonthRange([dayjs('2024-03-01'), dayjs('2024-02-01')])).toBe('filter.monthOrder');
    expect(validateMonthRange([dayjs('2024-02-01'), dayjs('2024-02-28')])).toBeUndefined();
  });
});

describe('search values', () => {
  const fields = [
    { prop: 'day', type: 'date' },
    { prop: 'at', type: 'datetime' },
    { prop: 'month', type: 'month' },
    { prop: 'range', type: 'daterange', keys: { start: 'startTime', end: 'endTime' } },
    { prop: 'months', type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' } },
    { prop: 'plates', type: 'batchInput' },
  ];

  it('formats yyyy-MM-dd, yyyy-MM-dd HH:mm:ss, yyyy-MM and spans whole days', () => {
    const out = shapeValues(fields, {
      day: dayjs('2024-05-06'),
      at: dayjs('2024-05-06 07:08:09'),
      month: dayjs('2024-05-01'),
      range: [dayjs('2024-05-01'), dayjs('2024-05-31')],
      months: [dayjs('2024-01-01'), dayjs('2024-03-01')],
      plates: ['沪A1', '沪A2'],
    });
    expect(out).toEqual({
      day: '2024-05-06',
      at: '2024-05-06 07:08:09',
      month: '2024-05',
      startTime: '2024-05-01 00:00:00',
      endTime: '2024-05-31 23:59:59',
      startMonth: '2024-01',
      endMonth: '2024-03',
      plates: ['沪A1', '沪A2'],
    });
  });

  it('searches on mount only when a field starts with a value', () => {
    expect(hasInitialValue([{ initValue: undefined }, { initValue: '' }, { initValue: [] }])).toBe(false);
    expect(hasInitialValue([{ initValue: 0 }])).toBe(true);
  });

  it('resets to initial values but keeps unReset fields', () => {
    expect(resetValues([{ prop: 'a', initValue: 'x' }, { prop: 'b', unReset: true }], { a: 'changed', b: 'kept' })).toEqual({ a: 'x', b: 'kept' });
  });
});
