// Pure rules of the dynamic form builder: a record's values as the controls hold
// them (dates as dayjs), the values submitted (dates as text, files as their keys,
// numbers as strings where the server types the field as a string, hidden fields
// left out) and the text the read-only detail shows ('-' for empty). Domain forms
// do not call these directly: they declare `FormField`s (field-schema.ts).
import dayjs, { type Dayjs } from 'dayjs';
import type { FileItem } from '@/components/upload/upload-control';
import { attachmentKeysOf } from '@/lib/files';
import { DATE_FORMAT, DATETIME_FORMAT } from '@/lib/format';
import { yuan } from '@/lib/money';
import { FORM_BLANK, RANGE_CONNECTOR, isFieldHidden, valueTypeOf, type FieldKind, type FormField, type FormValues } from './field-schema';

const DATE_KINDS: FieldKind[] = ['date', 'date-time'];
const RANGE_KINDS: FieldKind[] = ['date-range', 'date-time-range'];

const isDayjs = (v: unknown): v is Dayjs => dayjs.isDayjs(v);

function patternOf(kind: FieldKind): string {
  return kind === 'date-time' || kind === 'date-time-range' ? DATETIME_FORMAT : DATE_FORMAT;
}

/** A stored date (text, timestamp or dayjs) as the picker holds it; nothing for empty or invalid. */
function toDayjs(value: unknown): Dayjs | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (isDayjs(value)) return value;
  if (typeof value !== 'string' && typeof value !== 'number' && !(value instanceof Date)) return undefined;
  const parsed = dayjs(value);
  return parsed.isValid() ? parsed : undefined;
}

export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  return false;
}

/** A record (from the server) as the form's initial values: defaults filled in, dates parsed. */
export function toFormValues(fields: FormField[], record: FormValues = {}): FormValues {
  const out: FormValues = {};
  for (const field of fields) {
    let value = field.keys ? [record[field.keys.start], record[field.keys.end]] : record[field.name];
    if (isEmptyValue(value)) value = field.initialValue;
    if (DATE_KINDS.includes(field.kind)) value = toDayjs(value);
    else if (RANGE_KINDS.includes(field.kind)) value = Array.isArray(value) && !isEmptyValue(value) ? [toDayjs(value[0]), toDayjs(value[1])] : undefined;
    out[field.name] = value;
  }
  return out;
}

/** Numbers become strings for fields the server types as strings (lists item by item). */
export function asValueType(field: Pick<FormField, 'kind' | 'valueType'>, value: unknown): unknown {
  if (valueTypeOf(field) !== 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'number' ? String(v) : v));
  return value;
}

/** One field's value as submitted. */
function submitValue(field: FormField, value: unknown): unknown {
  const format = (v: unknown) => (isDayjs(v) ? v.format(patternOf(field.kind)) : v);
  if (DATE_KINDS.includes(field.kind)) return asValueType(field, format(value));
  if (RANGE_KINDS.includes(field.kind)) return Array.isArray(value) && value[0] && value[1] ? [format(value[0]), format(value[1])] : undefined;
  if (field.kind === 'upload') return attachmentKeysOf(value as FileItem[] | undefined);
  return asValueType(field, value);
}

/**
 * The values a submit sends: hidden fields left out, dates as yyyy-MM-dd or
 * yyyy-MM-dd HH:mm:ss, uploads as the stored keys, numbers as strings for fields
 * typed as strings, ranges with `keys` split into their two parameters.
 */
export function toSubmitValues(fields: FormField[], values: FormValues): FormValues {
  const out: FormValues = {};
  for (const field of fields) {
    if (isFieldHidden(field, values)) continue;
    const value = submitValue(field, values[field.name]);
    if (field.keys) {
      const pair = Array.isArray(value) ? value : [];
      out[field.keys.start] = pair[0];
      out[field.keys.end] = pair[1];
    } else {
      out[field.name] = value;
    }
  }
  return out;
}

const withUnit = (text: string, unit?: string) => (unit ? `${text} ${unit}` : text);

/** Labels of the chosen options (the value itself where no option matches), comma-joined. */
function optionText(field: FormField, value: unknown): string {
  const list = Array.isArray(value) ? value : [value];
  return list
    .map((v) => {
      const option = field.options?.find((o) => o.value === v || String(o.value) === String(v));
      return option && (typeof option.label === 'string' || typeof option.label === 'number') ? String(option.label) : String(v);
    })
    .join(',');
}

function dateText(kind: FieldKind, value: unknown): string {
  const date = toDayjs(value);
  return date ? date.format(patternOf(kind)) : '';
}

/** The text of a value in the read-only detail; '-' when empty. */
export function detailText(field: FormField, value: unknown): string {
  if (isEmptyValue(value)) return FORM_BLANK;
  let text: string;
  switch (field.kind) {
    case 'select':
    case 'radio':
      text = optionText(field, value);
      break;
    case 'money-fen':
      text = withUnit(yuan(Number(value)), field.unit);
      break;
    case 'number':
      text = withUnit(String(value), field.unit);
      break;
    case 'date':
    case 'date-time':
      text = dateText(field.kind, value);
      break;
    case 'date-range':
    case 'date-time-range': {
      const [start, end] = Array.isArray(value) ? value : [];
      text = start || end ? `${dateText(field.kind, start) || FORM_BLANK} ${RANGE_CONNECTOR} ${dateText(field.kind, end) || FORM_BLANK}` : '';
      break;
    }
    case 'upload':
      text = ((value as FileItem[]) ?? []).map((f) => f.name).join(',');
      break;
    case 'province-city': {
      const v = value as { provinceName?: string; cityName?: string };
      text = [v.provinceName, v.cityName].filter(Boolean).join(' ');
      break;
    }
    case 'region': {
      const v = value as { province?: string; city?: string };
      text = [v.province, v.city].filter(Boolean).join(' ');
      break;
    }
    default:
      text = Array.isArray(value) ? value.filter((v) => !isEmptyValue(v)).join(',') : typeof value === 'object' ? '' : String(value);
  }
  return text.trim() === '' ? FORM_BLANK : text;
}
