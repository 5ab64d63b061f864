// The field schema of the dynamic form builder: a domain form (repair orders,
// insurance policies, accidents, invoices, …) declares its fields as data and the
// builder renders them for editing or as a read-only detail, validates them and
// shapes what is submitted. A domain form writes, for example:
//
//   const fields: FormField[] = [
//     { kind: 'text', name: 'orderNo', label: '工单号', required: true, span: 12 },
//     { kind: 'money-fen', name: 'amountFen', label: '金额', required: true, span: 12 },
//     { kind: 'select', name: 'status', label: '状态', options: STATUS_OPTIONS },
//     { kind: 'number', name: 'mileage', label: '里程', valueType: 'string', unit: 'km' },
//     { kind: 'textarea', name: 'reason', label: '原因', hidden: (v) => v.status !== 'rejected' },
//   ];
//
// and passes them to `<DynamicForm fields={fields} … />` (see dynamic-form.tsx).
import type { FormRule } from 'antd';
import type { ComponentType, ReactNode } from 'react';
import type { UploadPurpose } from '@/lib/files';

/** Label column of a form, and of the regional (province/city, region) pickers. */
export const LABEL_WIDTH_PX = 105;
export const REGION_LABEL_WIDTH_PX = 90;
/** Every form's label column (antd `labelCol`): 105 px, labels left of their fields. */
export const FORM_LABEL_COL = { flex: `${LABEL_WIDTH_PX}px` } as const;
/** A changed field is checked again once the user has paused this long. */
export const REVALIDATE_DEBOUNCE_MS = 1_000;
/** Number inputs accept 0 to 10000 unless a field says otherwise. */
export const NUMBER_MIN = 0;
export const NUMBER_MAX = 10_000;
/** What the detail mode shows for an empty value. */
export const FORM_BLANK = '-';
/** Between the two ends of a range in the detail mode. */
export const RANGE_CONNECTOR = '至';
/** Columns of the form grid (antd's 24). */
export const GRID_COLUMNS = 24;

export type FieldKind =
  | 'text'
  | 'textarea'
  | 'number'
  | 'money-fen'
  | 'select'
  | 'radio'
  | 'date'
  | 'date-time'
  | 'date-range'
  | 'date-time-range'
  | 'upload'
  | 'org'
  | 'province-city'
  | 'region'
  | 'custom';

/** What the server expects for a field: its value is converted on submit. */
export type FieldValueType = 'string' | 'number' | 'as-is';

export interface FieldOption {
  value: string | number;
  label: ReactNode;
  disabled?: boolean;
  /** A note shown at the right of the option. */
  rightLabel?: ReactNode;
}

/** All the values of the form, as the controls hold them. */
export type FormValues = Record<string, unknown>;

/** Props a custom control receives (the same contract as any antd form control). */
export interface CustomControlProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  disabled?: boolean;
  field: FormField;
}

export interface FormField {
  kind: FieldKind;
  /** The value's key in the record, in what is submitted too. */
  name: string;
  label: string;
  required?: boolean;
  /** More antd rules; their messages are the form's own (Chinese first, through i18n). */
  rules?: FormRule[];
  /** select and radio: the choices. */
  options?: FieldOption[];
  /** select: choices loaded from the server, cached by react-query under `key`. */
  loadOptions?: { key: readonly unknown[]; load: () => Promise<FieldOption[]> };
  multiple?: boolean;
  /** Width in grid columns (of 24); the form's `defaultSpan` otherwise. */
  span?: number;
  placeholder?: string;
  maxLength?: number;
  /** number: the range, 0 to 10000 by default. */
  min?: number;
  max?: number;
  /** number and money-fen: decimals typed (money-fen is always yuan with 2). */
  precision?: number;
  /** Shown after the value (in the input and the detail). */
  unit?: string;
  /** The value's type on the wire; text kinds are strings, number kinds numbers by default. */
  valueType?: FieldValueType;
  /** Date ranges: submit the two ends as these two keys instead of a pair. */
  keys?: { start: string; end: string };
  /** The value a new record starts with. */
  initialValue?: unknown;
  /** Not shown (nor submitted) while this holds for the current values. */
  hidden?: (values: FormValues) => boolean;
  /** Shown but not editable; a function follows the current values. */
  disabled?: boolean | ((values: FormValues) => boolean);
  /** upload: what the files are for (the server's types and size limit) and the control's limits. */
  upload?: { purpose: UploadPurpose; limit?: number; types?: string[]; maxSizeMb?: number; pictureCard?: boolean };
  /** custom: the control. */
  control?: ComponentType<CustomControlProps>;
  /** Detail mode: what to show instead of the default formatting. */
  format?: (value: unknown, values: FormValues) => ReactNode;
}

/** Text kinds are strings on the wire; number kinds numbers; the rest as they are. */
export function valueTypeOf(field: Pick<FormField, 'kind' | 'valueType'>): FieldValueType {
  if (field.valueType) return field.valueType;
  switch (field.kind) {
    case 'text':
    case 'textarea':
      return 'string';
    case 'number':
    case 'money-fen':
      return 'number';
    default:
      return 'as-is';
  }
}

/** Regional pickers are laid out with a narrower label. */
export function labelWidthOf(field: Pick<FormField, 'kind'>): number {
  return field.kind === 'province-city' || field.kind === 'region' ? REGION_LABEL_WIDTH_PX : LABEL_WIDTH_PX;
}

/** Fields a person picks from (their required message says 请选择, the others 请输入). */
export function isChoiceKind(kind: FieldKind): boolean {
  return ['select', 'radio', 'date', 'date-time', 'date-range', 'date-time-range', 'org', 'province-city', 'region', 'custom'].includes(kind);
}

export function isFieldHidden(field: FormField, values: FormValues): boolean {
  return field.hidden?.(values) ?? false;
}

export function isFieldDisabled(field: FormField, values: FormValues): boolean {
  return typeof field.disabled === 'function' ? field.disabled(values) : (field.disabled ?? false);
}
