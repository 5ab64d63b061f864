/**
 * A list page's state in the URL (issue 9): its filters, page and size are search
 * parameters, so the back button, a reload and a shared link all give the same
 * list. Multi-value filters repeat their key (`plate=A&plate=B`), as the gateway
 * reads them. Pure functions; `useListPage` binds them to the router.
 */
import dayjs from 'dayjs';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from '@/config/constants';
import { shapeValues, type FilterFieldType } from '@/components/filter-bar/filter-values';

/** Filters as the URL holds them: one text, or several for a multi-value key. */
export type ListFilters = Record<string, string | string[]>;

export interface ListState {
  filters: ListFilters;
  page: number;
  size: number;
}

/** What the URL functions need to know about a filter-bar field. */
export interface UrlField {
  prop: string;
  type: FilterFieldType | unknown;
  initValue?: unknown;
  multiple?: boolean;
  keys?: { start: string; end: string };
  options?: { value: string | number; children?: UrlField['options'] }[];
}

export const PAGE_PARAM = 'page';
export const SIZE_PARAM = 'size';

/** Field types whose value is a list (repeated key) when it has no `keys`. */
const LIST_TYPES: unknown[] = ['batchInput', 'daterange', 'datetimerange', 'rangeMonth', 'inputRange', 'cascader', 'checkbox'];
const RANGE_TYPES: unknown[] = ['daterange', 'datetimerange', 'rangeMonth', 'inputRange'];

/** The URL keys a field writes, each with whether it holds several values. */
export function paramsOf(field: UrlField): { key: string; many: boolean }[] {
  if (field.keys && RANGE_TYPES.includes(field.type)) {
    return [
      { key: field.keys.start, many: false },
      { key: field.keys.end, many: false },
    ];
  }
  return [{ key: field.prop, many: LIST_TYPES.includes(field.type) || !!field.multiple }];
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Filter-bar output (shaped values) as URL filters: texts, blanks left out. */
export function toListFilters(values: Record<string, unknown>): ListFilters {
  const out: ListFilters = {};
  for (const [key, value] of Object.entries(values)) {
    if (isEmpty(value)) continue;
    if (Array.isArray(value)) {
      const texts = value.filter((v) => !isEmpty(v)).map(String);
      if (texts.length) out[key] = texts;
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out[key] = String(value);
    }
  }
  return out;
}

/** The filters a list starts with: the fields' initial values. */
export function defaultFilters(fields: UrlField[]): ListFilters {
  return toListFilters(shapeValues(fields, Object.fromEntries(fields.map((f) => [f.prop, f.initValue]))));
}

const sameValue = (a: string | string[] | undefined, b: string | string[] | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function readPage(text: string | null): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= FIRST_PAGE ? n : FIRST_PAGE;
}

function readSize(text: string | null): number {
  const n = Number(text);
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : DEFAULT_PAGE_SIZE;
}

/**
 * The list state a URL describes. A key missing from the URL takes the field's
 * initial value; a key present but empty (`status=`) is a filter the user
 * cleared. Page below 1 or a size outside 5/10/20/50/100 fall back to the defaults.
 */
export function readListState(params: URLSearchParams, fields: UrlField[]): ListState {
  const defaults = defaultFilters(fields);
  const filters: ListFilters = {};
  for (const field of fields) {
    for (const { key, many } of paramsOf(field)) {
      if (!params.has(key)) {
        if (defaults[key] !== undefined) filters[key] = defaults[key];
        continue;
      }
      if (many) {
        const all = params.getAll(key).map((v) => v.trim()).filter(Boolean);
        if (all.length) filters[key] = all;
      } else {
        const one = (params.get(key) ?? '').trim();
        if (one) filters[key] = one;
      }
    }
  }
  return { filters, page: readPage(params.get(PAGE_PARAM)), size: readSize(params.get(SIZE_PARAM)) };
}

/**
 * The URL for a list state. Parameters that are not the list's (e.g. a fixed
 * `vehicleId`) are kept; filters equal to their initial value, page 1 and the
 * default size are left out so a plain list keeps a plain address.
 */
export function writeListState(state: ListState, fields: UrlField[], current = new URLSearchParams()): URLSearchParams {
  const defaults = defaultFilters(fields);
  const owned = new Set([PAGE_PARAM, SIZE_PARAM, ...fields.flatMap((f) => paramsOf(f).map((p) => p.key))]);
  const next = new URLSearchParams();
  for (const [key, value] of current) if (!owned.has(key)) next.append(key, value);
  for (const field of fields) {
    for (const { key } of paramsOf(field)) {
      const value = state.filters[key];
      if (sameValue(value, defaults[key])) continue;
      if (value === undefined) next.set(key, '');
      else for (const v of Array.isArray(value) ? value : [value]) next.append(key, v);
    }
  }
  if (state.page !== FIRST_PAGE) next.set(PAGE_PARAM, String(state.page));
  if (state.size !== DEFAULT_PAGE_SIZE) next.set(SIZE_PARAM, String(state.size));
  return next;
}

/** An option value as the control holds it (numbers stay numbers). */
function optionValue(field: UrlField, text: string): string | number {
  const walk = (options: UrlField['options']): string | number | undefined => {
    for (const o of options ?? []) {
      if (String(o.value) === text) return o.value;
      const inner = walk(o.children);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return walk(field.options) ?? text;
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const day = (text: string | undefined) => (text ? dayjs(text) : null);
const numberOrNull = (text: string | undefined) => (text === undefined || text === '' || Number.isNaN(Number(text)) ? null : Number(text));

/**
 * URL filters back into what the filter bar's controls hold (dates as dayjs,
 * option values in their own type), so the bar shows the list it searched.
 */
export function toFormValues(fields: UrlField[], filters: ListFilters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const pair = field.keys && RANGE_TYPES.includes(field.type)
      ? [filters[field.keys.start], filters[field.keys.end]].map((v) => (Array.isArray(v) ? v[0] : v))
      : asList(filters[field.prop]);
    const one = filters[field.prop];
    const single = Array.isArray(one) ? one[0] : one;
    switch (field.type) {
      case 'date':
      case 'datetime':
      case 'month':
        out[field.prop] = day(single) ?? undefined;
        break;
      case 'daterange':
      case 'datetimerange':
      case 'rangeMonth':
        out[field.prop] = pair[0] || pair[1] ? [day(pair[0]), day(pair[1])] : undefined;
        break;
      case 'inputRange':
        out[field.prop] = pair[0] || pair[1] ? [numberOrNull(pair[0]), numberOrNull(pair[1])] : undefined;
        break;
      case 'batchInput':
        out[field.prop] = asList(one);
        break;
      case 'cascader':
      case 'checkbox':
        out[field.prop] = asList(one).map((v) => optionValue(field, v));
        break;
      default:
        if (field.multiple) out[field.prop] = asList(one).map((v) => optionValue(field, v));
        else out[field.prop] = single === undefined ? undefined : optionValue(field, single);
    }
  }
  return out;
}

/** One filter as text ('' when absent; the first of several). */
export function oneOf(filters: ListFilters, key: string): string {
  const v = filters[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** A multi-value filter (also a single text given where several may be). */
export function manyOf(filters: ListFilters, key: string): string[] {
  return asList(filters[key]);
}

/** A filter that must be one of `allowed` (numbers from a select), else undefined. */
export function enumOf<T extends number | string>(filters: ListFilters, key: string, allowed: readonly T[]): T | undefined {
  const text = oneOf(filters, key);
  return allowed.find((a) => String(a) === text);
}
