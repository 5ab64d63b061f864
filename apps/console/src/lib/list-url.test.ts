import dayjs from 'dayjs';
import { defaultFilters, enumOf, manyOf, oneOf, readListState, toFormValues, toListFilters, writeListState, type UrlField } from './list-url';

const fields: UrlField[] = [
  { prop: 'plate', type: 'batchInput' },
  { prop: 'vin', type: 'input' },
  { prop: 'status', type: 'select', initValue: 1, options: [{ value: 1 }, { value: 2 }] },
  { prop: 'registered', type: 'daterange', keys: { start: 'registeredFrom', end: 'registeredTo' } },
  { prop: 'energy', type: 'select', multiple: true, options: [{ value: 1 }, { value: 2 }, { value: 3 }] },
];

const url = (text: string) => new URLSearchParams(text);

describe('list state in the URL', () => {
  it('reads repeated keys as a batch filter and single keys as text', () => {
    const state = readListState(url('plate=沪A12345&plate=粤B66666&vin=LSV&page=3&size=50'), fields);
    expect(state).toEqual({ filters: { plate: ['沪A12345', '粤B66666'], vin: 'LSV', status: '1' }, page: 3, size: 50 });
  });

  it('falls back to page 1 and size 20 for pages below 1 and sizes outside 5/10/20/50/100', () => {
    expect(readListState(url('page=0&size=30'), fields)).toMatchObject({ page: 1, size: 20 });
    expect(readListState(url('page=abc&size=1000'), fields)).toMatchObject({ page: 1, size: 20 });
    expect(readListState(url('page=2.5&size=5'), fields)).toMatchObject({ page: 1, size: 5 });
  });

  it('gives a missing key its initial value and an empty key no value (the user cleared it)', () => {
    expect(readListState(url(''), fields).filters).toEqual({ status: '1' });
    expect(readListState(url('status='), fields).filters).toEqual({});
  });

  it('writes the batch filter as repeated keys and leaves defaults, page 1 and size 20 out', () => {
    const written = writeListState({ filters: { plate: ['沪A12345', '粤B66666'], status: '1' }, page: 1, size: 20 }, fields);
    expect(written.toString()).toBe(url('plate=沪A12345&plate=粤B66666').toString());
    expect(writeListState({ filters: { status: '1' }, page: 2, size: 50 }, fields).toString()).toBe('page=2&size=50');
  });

  it('writes a cleared defaulted filter as an empty key, so reading gives it back cleared', () => {
    const written = writeListState({ filters: {}, page: 1, size: 20 }, fields);
    expect(written.toString()).toBe('status=');
    expect(readListState(written, fields).filters).toEqual({});
  });

  it('keeps parameters that are not the list’s own', () => {
    const written = writeListState({ filters: { vin: 'X' }, page: 1, size: 20 }, fields, url('vehicleId=v1&vin=old&page=4'));
    expect(written.getAll('vehicleId')).toEqual(['v1']);
    expect(written.get('vin')).toBe('X');
    expect(written.has('page')).toBe(false);
  });

  it('round-trips every kind of filter through the URL', () => {
    const state = {
      filters: { plate: ['沪A12345'], vin: 'LSVAB', status: '2', registeredFrom: '2026-01-01 00:00:00', registeredTo: '2026-01-31 23:59:59', energy: ['1', '3'] },
      page: 4,
      size: 100,
    };
    expect(readListState(writeListState(state, fields), fields)).toEqual(state);
  });

  it('turns filter-bar output into URL filters, blanks left out, numbers as text', () => {
    expect(toListFilters({ plate: [], vin: '', status: 2, energy: [1, 3], registeredFrom: undefined, x: null })).toEqual({ status: '2', energy: ['1', '3'] });
    expect(defaultFilters(fields)).toEqual({ status: '1' });
  });

  it('gives the filter bar its control values back: option types, dates, lists', () => {
    const values = toFormValues(fields, { plate: ['沪A12345'], status: '2', energy: ['1', '3'], registeredFrom: '2026-01-01 00:00:00', registeredTo: '2026-01-31 23:59:59' });
    expect(values.plate).toEqual(['沪A12345']);
    expect(values.status).toBe(2);
    expect(values.energy).toEqual([1, 3]);
    const [from, to] = values.registered as dayjs.Dayjs[];
    expect(from.format('YYYY-MM-DD')).toBe('2026-01-01');
    expect(to.format('YYYY-MM-DD')).toBe('2026-01-31');
    expect(toFormValues(fields, {}).registered).toBeUndefined();
  });

  it('reads typed filters for a query', () => {
    const filters = { status: '2', plate: ['A', 'B'], vin: 'V' };
    expect(enumOf(filters, 'status', [1, 2] as const)).toBe(2);
    expect(enumOf({ status: '9' }, 'status', [1, 2] as const)).toBeUndefined();
    expect(manyOf(filters, 'plate')).toEqual(['A', 'B']);
    expect(manyOf(filters, 'vin')).toEqual(['V']);
    expect(oneOf(filters, 'vin')).toBe('V');
    expect(oneOf(filters, 'none')).toBe('');
  });
});
