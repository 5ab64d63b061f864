import { DownOutlined, UpOutlined } from '@ant-design/icons';
import { AutoComplete, Button, Cascader, Checkbox, DatePicker, Form, Input, InputNumber, Select, Space, TreeSelect, type FormRule } from 'antd';
import type { Dayjs } from 'dayjs';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { toastError } from '@/lib/notify';
import { ProvinceCityPicker } from '@/components/area-picker/province-city-picker';
import { RegionPicker } from '@/components/area-picker/region-picker';
import { BatchDialog } from '@/components/batch-dialog';
import { hasInitialValue, isSet, RANGE_DEFAULT_TIMES, resetValues, shapeValues, TEXT_TYPES, validateMonthRange, type FilterFieldType } from './filter-values';

export interface FilterOption {
  value: string | number;
  label: ReactNode;
  disabled?: boolean;
  children?: FilterOption[];
}

export interface CustomFieldProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  field: FilterField;
}

export interface FilterField {
  prop: string;
  label: string;
  type: FilterFieldType | ComponentType<CustomFieldProps>;
  initValue?: unknown;
  options?: FilterOption[];
  /** selectGroup: option groups. */
  groups?: { label: ReactNode; options: FilterOption[] }[];
  /** Remote options (autocomplete, remote select, org and user selectors). */
  loadOptions?: (keyword: string) => Promise<FilterOption[]>;
  placeholder?: string;
  width?: number;
  maxlength?: number;
  multiple?: boolean;
  rules?: FormRule[];
  /** Two parameters for a range (required for rangeMonth). */
  keys?: { start: string; end: string };
  /** Range pickers: dates before `startTime` or after `endTime` are disabled. */
  range?: { startTime?: string; endTime?: string };
  unReset?: boolean;
  notVerify?: boolean;
  /** slot: renders the field. */
  render?: (value: unknown, onChange: (value: unknown) => void) => ReactNode;
}

export interface FilterBarProps {
  fields: FilterField[];
  onSearch: (values: Record<string, unknown>) => void;
  onReset?: () => void;
  /** Debounced (500 ms for text) field change. */
  onFieldChange?: (prop: string, value: unknown) => void;
  onExpandChange?: (expanded: boolean) => void;
  searchText?: string;
  /** Search on mount when a field has an initial value (default on). */
  searchOnInit?: boolean;
  /** Search again after reset (default on). */
  searchOnReset?: boolean;
  /** Values to show now (a list restored from its URL); reset still goes back to initial values. */
  values?: Record<string, unknown>;
}

/** Content taller than this gets the expand/collapse button (console spec §2). */
export const COLLAPSED_HEIGHT_PX = 55;
export const TEXT_DEBOUNCE_MS = 500;
export const RESIZE_DEBOUNCE_MS = 200;
export const MOUNT_CHECK_MS = 800;

const fieldStyle = (f: FilterField, fallback = 200) => ({ width: f.width ?? fallback });

/**
 * Which fields sit below the first row (by their layout): the index of the first
 * one, or none. A collapsed bar hides them, so not even the top edge of the
 * second row shows through the clipped height.
 */
export function firstWrappedIndex(items: readonly { offsetTop: number }[]): number | undefined {
  if (items.length === 0) return undefined;
  const firstTop = items[0].offsetTop;
  const index = items.findIndex((item) => item.offsetTop > firstTop);
  return index === -1 ? undefined : index;
}

function disabledByRange(range: FilterField['range']) {
  if (!range?.startTime && !range?.endTime) return undefined;
  return (d: Dayjs) => (!!range.startTime && d.isBefore(range.startTime, 'day')) || (!!range.endTime && d.isAfter(range.endTime, 'day'));
}

function RemoteSelect({ field, value, onChange, placeholder }: { field: FilterField; value?: unknown; onChange?: (v: unknown) => void; placeholder: string }) {
  const [options, setOptions] = useState<FilterOption[]>(field.options ?? []);
  const [loading, setLoading] = useState(false);
  const search = useCallback(
    (keyword: string) => {
      if (!field.loadOptions) return;
      setLoading(true);
      field.loadOptions(keyword).then(setOptions, () => setOptions([])).finally(() => setLoading(false));
    },
    [field],
  );
  useEffect(() => search(''), [search]);
  return (
    <Select
      style={fieldStyle(field)}
      allowClear
      showSearch={{ filterOption: false, onSearch: search }}
      loading={loading}
      mode={field.multiple ? 'multiple' : undefined}
      value={value as string}
      onChange={onChange}
      options={options as never}
      placeholder={placeholder}
    />
  );
}

function BatchInput({ field, value, onChange, placeholder }: { field: FilterField; value?: string[]; onChange?: (v: string[]) => void; placeholder: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const list = value ?? [];
  // The typed text is kept as typed (a trailing comma too) while it still means `list`.
  const [text, setText] = useState(list.join(','));
  const parse = (t: string) => t.split(',').map((s) => s.trim()).filter(Boolean);
  const shown = parse(text).join(',') === list.join(',') ? text : list.join(',');
  return (
    <>
      <Space.Compact style={fieldStyle(field, 240)}>
        <Input
          value={shown}
          placeholder={placeholder}
          maxLength={field.maxlength}
          onChange={(e) => {
            setText(e.target.value);
            onChange?.(parse(e.target.value));
          }}
        />
        <Button onClick={() => setOpen(true)} autoInsertSpace={false}>
          {t('filter.batch')}
        </Button>
      </Space.Compact>
      <BatchDialog
        open={open}
        label={field.label}
        value={list}
        onCancel={() => setOpen(false)}
        onSubmit={(lines) => {
          onChange?.(lines);
          setOpen(false);
        }}
      />
    </>
  );
}

function MonthRange({ field, value, onChange }: { field: FilterField; value?: [Dayjs | null, Dayjs | null]; onChange?: (v: [Dayjs | null, Dayjs | null]) => void }) {
  const { t } = useTranslation();
  const [start, end] = value ?? [null, null];
  return (
    <Space.Compact>
      <DatePicker picker="month" value={start} placeholder={t('filter.startMonth')} onChange={(d) => onChange?.([d, end])} disabledDate={disabledByRange(field.range)} />
      <span className="fd-filter__to">{t('filter.to')}</span>
      <DatePicker picker="month" value={end} placeholder={t('filter.endMonth')} onChange={(d) => onChange?.([start, d])} disabledDate={disabledByRange(field.range)} />
    </Space.Compact>
  );
}

function InputRange({ field, value, onChange }: { field: FilterField; value?: [number | null, number | null]; onChange?: (v: [number | null, number | null]) => void }) {
  const { t } = useTranslation();
  const [min, max] = value ?? [null, null];
  return (
    <Space.Compact>
      <InputNumber min={0} max={10000} value={min} placeholder={t('filter.min')} onChange={(v) => onChange?.([v, max])} style={{ width: (field.width ?? 200) / 2 }} />
      <span className="fd-filter__to">{t('filter.to')}</span>
      <InputNumber min={0} max={10000} value={max} placeholder={t('filter.max')} onChange={(v) => onChange?.([min, v])} style={{ width: (field.width ?? 200) / 2 }} />
    </Space.Compact>
  );
}

/**
 * The control of one field; Form.Item injects `value` and `onChange`, passed on here.
 * Their type depends on the field type, so they are typed as the control expects.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Injected = { value?: any; onChange?: (...args: any[]) => void };

function FieldControl({ field, ...control }: { field: FilterField } & Injected) {
  const { t } = useTranslation();
  const input = field.placeholder ?? t('common.pleaseInput');
  const choose = field.placeholder ?? t('common.pleaseSelect');
  const type = field.type;
  if (typeof type !== 'string') {
    const Custom = type;
    return <Custom {...control} field={field} />;
  }
  switch (type) {
    case 'input':
      return <Input {...control} allowClear style={fieldStyle(field)} maxLength={field.maxlength} placeholder={input} />;
    case 'autocomplete':
      return <AutoComplete {...control} style={fieldStyle(field)} options={field.options as never} placeholder={input} allowClear />;
    case 'date':
      return <DatePicker {...control} style={fieldStyle(field)} placeholder={choose} disabledDate={disabledByRange(field.range)} />;
    case 'datetime':
      return <DatePicker {...control} showTime style={fieldStyle(field)} placeholder={choose} disabledDate={disabledByRange(field.range)} />;
    case 'month':
      return <DatePicker {...control} picker="month" style={fieldStyle(field)} placeholder={choose} />;
    case 'daterange':
      return <DatePicker.RangePicker {...control} style={fieldStyle(field, 260)} disabledDate={disabledByRange(field.range)} separator={t('filter.to')} />;
    case 'datetimerange':
      return <DatePicker.RangePicker {...control} showTime={{ defaultOpenValue: RANGE_DEFAULT_TIMES }} style={fieldStyle(field, 380)} disabledDate={disabledByRange(field.range)} separator={t('filter.to')} />;
    case 'rangeMonth':
      return <MonthRange {...control} field={field} />;
    case 'checkbox':
      return <Checkbox.Group {...control} options={(field.options ?? []).map((o) => ({ ...o, label: o.label as string }))} />;
    case 'select':
      return field.loadOptions ? (
        <RemoteSelect {...control} field={field} placeholder={choose} />
      ) : (
        <Select {...control} allowClear style={fieldStyle(field)} mode={field.multiple ? 'multiple' : undefined} options={field.options as never} placeholder={choose} />
      );
    case 'selectGroup':
      return <Select {...control} allowClear style={fieldStyle(field)} mode={field.multiple ? 'multiple' : undefined} options={field.groups as never} placeholder={choose} />;
    case 'cascader':
      return <Cascader {...control} style={fieldStyle(field)} options={field.options as never} placeholder={choose} changeOnSelect />;
    case 'selectTree':
    case 'DstOrgSelector':
      return <TreeSelect {...control} style={fieldStyle(field)} allowClear treeData={field.options as never} multiple={field.multiple} placeholder={choose} treeDefaultExpandAll={false} />;
    case 'selectDDuser':
      return <RemoteSelect {...control} field={field} placeholder={choose} />;
    case 'citys':
      return <ProvinceCityPicker {...control} width={(field.width ?? 260) / 2} />;
    case 'citys-charge':
      return <ProvinceCityPicker {...control} width={(field.width ?? 260) / 2} wholeCountry />;
    case 'blogCity':
      return <RegionPicker {...control} width={(field.width ?? 260) / 2} />;
    case 'batchInput':
      return <BatchInput {...control} field={field} placeholder={input} />;
    case 'inputRange':
      return <InputRange {...control} field={field} />;
    case 'slot':
      return <SlotField {...control} field={field} />;
  }
}

function SlotField({ field, value, onChange }: { field: FilterField; value?: unknown; onChange?: (v: unknown) => void }) {
  return field.render?.(value, (v) => onChange?.(v)) ?? null;
}

/** What decides a filter bar's values: its fields, their types and initial values (not labels). */
export function fieldsShape(fields: FilterField[]): string {
  return JSON.stringify(fields.map((f) => [f.prop, typeof f.type === 'string' ? f.type : 'custom', f.initValue ?? null]));
}

/**
 * The configurable filter/search bar of console spec §2/§4/§5: 查询, 重置, 展开/收起 (only
 * when the content is taller than 55 px; collapsed, the rows below the first are
 * hidden), month-range checks, initial search. Button texts stay exact: antd's
 * space between two Chinese characters is turned off on each of them.
 */
export function FilterBar({ fields, onSearch, onReset, onFieldChange, onExpandChange, searchText, searchOnInit = true, searchOnReset = true, values }: FilterBarProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Record<string, unknown>>();
  const [expanded, setExpanded] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const [wrappedFrom, setWrappedFrom] = useState<number | undefined>(undefined);
  const content = useRef<HTMLDivElement>(null);
  const debounceTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const initial = useMemo(() => Object.fromEntries(fields.map((f) => [f.prop, f.initValue])), [fields]);

  const search = useCallback(async () => {
    try {
      const values = await form.validateFields();
      onSearch(shapeValues(fields, values));
    } catch {
      toastError(t('filter.invalid'));
    }
  }, [fields, form, onSearch, t]);

  // Initial values apply on mount and when the fields change (which fields, their
  // types and initial values); search if any is set. Pages rebuild `fields` when the
  // language changes: new labels alone keep what the user typed.
  const shape = fieldsShape(fields);
  useEffect(() => {
    form.setFieldsValue(initial);
    if (searchOnInit && hasInitialValue(fields)) void search();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);

  // Shown values follow the list's URL (after the initial values above).
  useEffect(() => {
    if (values) form.setFieldsValue(values);
  }, [form, values]);

  // Expand button only when the content is taller than one row.
  useLayoutEffect(() => {
    const el = content.current;
    if (!el) return;
    const measure = () => {
      setOverflows(el.scrollHeight > COLLAPSED_HEIGHT_PX);
      setWrappedFrom(firstWrappedIndex(Array.from(el.children) as HTMLElement[]));
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const debounced = () => {
      clearTimeout(timer);
      timer = setTimeout(measure, RESIZE_DEBOUNCE_MS);
    };
    const mountCheck = setTimeout(measure, MOUNT_CHECK_MS);
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(debounced);
    observer?.observe(el);
    return () => {
      clearTimeout(timer);
      clearTimeout(mountCheck);
      observer?.disconnect();
    };
  }, [fields]);

  // A filter in a folded row that arrives set other than its default (a shared
  // link, a reload, back) opens the bar, so no filter in force is out of sight.
  // Checked again while the layout settles (the row a field lands on changes as
  // styles and options arrive), until the user opens or closes the bar: from
  // then on it is theirs.
  const userToggled = useRef(false);
  useEffect(() => {
    if (userToggled.current || expanded || wrappedFrom === undefined) return;
    const setByUser = (f: FilterField) => isSet(values?.[f.prop]) && JSON.stringify(values?.[f.prop]) !== JSON.stringify(f.initValue);
    if (fields.slice(wrappedFrom).some(setByUser)) {
      setExpanded(true);
      onExpandChange?.(true);
    }
  }, [wrappedFrom, expanded, fields, values, onExpandChange]);

  useEffect(() => {
    const timers = debounceTimers.current;
    return () => timers.forEach(clearTimeout);
  }, []);

  const fieldChanged = (changed: Record<string, unknown>) => {
    if (!onFieldChange) return;
    for (const [prop, value] of Object.entries(changed)) {
      const field = fields.find((f) => f.prop === prop);
      if (field && typeof field.type === 'string' && TEXT_TYPES.includes(field.type)) {
        clearTimeout(debounceTimers.current.get(prop));
        debounceTimers.current.set(prop, setTimeout(() => onFieldChange(prop, value), TEXT_DEBOUNCE_MS));
      } else {
        onFieldChange(prop, value);
      }
    }
  };

  const reset = () => {
    form.setFieldsValue(resetValues(fields, form.getFieldsValue(true)));
    onReset?.();
    if (searchOnReset) void search();
  };

  const toggle = () => {
    userToggled.current = true;
    const next = !expanded;
    setExpanded(next);
    onExpandChange?.(next);
    void search();
  };

  // Collapsed, the rows below the first are hidden (not only clipped): no edge of
  // them shows, and keyboard focus does not land in fields no one can see.
  const folded = (index: number) => !expanded && wrappedFrom !== undefined && index >= wrappedFrom;

  return (
    <Form form={form} layout="inline" className="fd-filter" onValuesChange={fieldChanged} onFinish={() => void search()} onFinishFailed={() => toastError(t('filter.invalid'))} data-testid="filter-bar">
      <div ref={content} className={`fd-filter__fields${expanded ? ' is-expanded' : ''}`} style={expanded ? undefined : { maxHeight: COLLAPSED_HEIGHT_PX }}>
        {fields.map((field, index) => {
          const rules: FormRule[] = [...(field.rules ?? [])];
          if (field.type === 'rangeMonth') {
            if (!field.keys) throw new Error(`rangeMonth field "${field.prop}" needs keys {start, end}`);
            if (!field.notVerify) {
              rules.push({
                validator: (_, v: [Dayjs | null, Dayjs | null]) => {
                  const error = validateMonthRange(v);
                  return error ? Promise.reject(new Error(t(error))) : Promise.resolve();
                },
              });
            }
          }
          return (
            <Form.Item key={field.prop} name={field.prop} label={field.label} rules={rules} style={folded(index) ? { visibility: 'hidden' } : undefined}>
              <FieldControl field={field} />
            </Form.Item>
          );
        })}
      </div>
      <Space className="fd-filter__buttons">
        <Button type="primary" htmlType="submit" autoInsertSpace={false}>
          {searchText ?? t('filter.search')}
        </Button>
        <Button onClick={reset} autoInsertSpace={false}>
          {t('filter.reset')}
        </Button>
        {overflows && (
          <Button type="link" onClick={toggle} icon={expanded ? <UpOutlined /> : <DownOutlined />} iconPlacement="end" autoInsertSpace={false}>
            {expanded ? t('filter.collapse') : t('filter.expand')}
          </Button>
        )}
      </Space>
    </Form>
  );
}
