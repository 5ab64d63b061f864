/** Pure rules of the filter bar (console spec §4/§5): value shaping and month-range checks. */
import dayjs, { type Dayjs } from 'dayjs';
import { RANGE_END_TIME, RANGE_START_TIME } from '@/lib/format';

export type FilterFieldType =
  | 'input' | 'autocomplete' | 'datetime' | 'date' | 'daterange' | 'datetimerange' | 'month' | 'rangeMonth'
  | 'checkbox' | 'select' | 'selectGroup' | 'cascader' | 'selectTree' | 'citys' | 'citys-charge' | 'blogCity'
  | 'batchInput' | 'inputRange' | 'DstOrgSelector' | 'selectDDuser' | 'slot';

/** A date-time range's times before the user picks any: the start of the first day to the end of the last. */
export const RANGE_DEFAULT_TIMES = [RANGE_START_TIME, RANGE_END_TIME].map((time) => {
  // Only the time of these counts; built by hand as dayjs parses `HH:mm:ss` only with a plugin.
  const [hour, minute, second] = time.split(':').map(Number);
  return dayjs().startOf('day').hour(hour).minute(minute).second(second);
});

/** Field types whose change events are debounced 500 ms. */
export const TEXT_TYPES: FilterFieldType[] = ['input', 'autocomplete', 'inputRange'];

/** i18n keys of the month-range messages. */
export const MONTH_RANGE_ERRORS = { order: 'filter.monthOrder', incomplete: 'filter.monthIncomplete' } as const;

type MaybeMonth = Dayjs | string | null | undefined;

const monthKey = (v: MaybeMonth): string | undefined => {
  if (!v) return undefined;
  return typeof v === 'string' ? v.slice(0, 7) : v.format('YYYY-MM');
};

/** Start after end → order error; only one filled → incomplete; both empty is fine. */
export function validateMonthRange(range: [MaybeMonth, MaybeMonth] | null | undefined): string | undefined {
  const [start, end] = [monthKey(range?.[0]), monthKey(range?.[1])];
  if (!start && !end) return undefined;
  if (!start || !end) return MONTH_RANGE_ERRORS.incomplete;
  if (start > end) return MONTH_RANGE_ERRORS.order;
  return undefined;
}

export interface ShapeField {
  prop: string;
  type: FilterFieldType | unknown;
  keys?: { start: string; end: string };
}

const isDayjs = (v: unknown): v is Dayjs => !!v && typeof (v as Dayjs).format === 'function' && typeof (v as Dayjs).isValid === 'function';

/**
 * Turns form values into search parameters: dates as yyyy-MM-dd, date-times as
 * yyyy-MM-dd HH:mm:ss, months as yyyy-MM; date ranges span whole days; ranges with
 * `keys` are split into their two parameters.
 */
export function shapeValues(fields: ShapeField[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.prop];
    const fmt = (v: unknown, pattern: string) => (isDayjs(v) ? v.format(pattern) : (v ?? undefined));
    let shaped: unknown = value;
    switch (field.type) {
      case 'date':
        shaped = fmt(value, 'YYYY-MM-DD');
        break;
      case 'datetime':
        shaped = fmt(value, 'YYYY-MM-DD HH:mm:ss');
        break;
      case 'month':
        shaped = fmt(value, 'YYYY-MM');
        break;
      case 'daterange':
        shaped = Array.isArray(value) && value[0] && value[1]
          ? [`${fmt(value[0], 'YYYY-MM-DD')} ${RANGE_START_TIME}`, `${fmt(value[1], 'YYYY-MM-DD')} ${RANGE_END_TIME}`]
          : undefined;
        break;
      case 'datetimerange':
        shaped = Array.isArray(value) && value[0] && value[1] ? [fmt(value[0], 'YYYY-MM-DD HH:mm:ss'), fmt(value[1], 'YYYY-MM-DD HH:mm:ss')] : undefined;
        break;
      case 'rangeMonth':
        shaped = Array.isArray(value) ? [fmt(value[0], 'YYYY-MM'), fmt(value[1], 'YYYY-MM')] : undefined;
        break;
    }
    if (field.keys && (field.type === 'daterange' || field.type === 'datetimerange' || field.type === 'rangeMonth' || field.type === 'inputRange')) {
      const pair = Array.isArray(shaped) ? shaped : [];
      out[field.keys.start] = pair[0] ?? undefined;
      out[field.keys.end] = pair[1] ?? undefined;
    } else {
      out[field.prop] = shaped;
    }
  }
  return out;
}

/** Whether a filter holds a value: not undefined, null, '' or an empty list. */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/** Does any field start with a value (then the bar searches on mount)? */
export function hasInitialValue(fields: { initValue?: unknown }[]): boolean {
  return fields.some((f) => isSet(f.initValue));
}

/** Values after reset: initial values, but `unReset` fields keep what they hold. */
export function resetValues(fields: { prop: string; initValue?: unknown; unReset?: boolean }[], current: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.prop, f.unReset ? current[f.prop] : f.initValue]));
}
