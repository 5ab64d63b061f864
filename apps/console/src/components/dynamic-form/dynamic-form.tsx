// The dynamic form builder: one field schema (field-schema.ts) rendered either for
// editing or as a read-only detail, so a domain page (repair orders, insurance
// policies, accidents, invoices, …) declares its fields once and shows both. A
// domain form writes:
//
//   const [form] = Form.useForm();
//   <DynamicForm form={form} fields={fields} record={order} onSubmit={(values) => save.mutateAsync(values)} />
//   <DynamicForm mode="detail" fields={fields} record={order} />
//
// and submits with `form.submit()` (a dialog's confirm) or a submit button passed
// as children. Labels are 105 px wide (regional pickers 90 px); a changed field is
// checked again 1000 ms after the user pauses; the detail shows '-' for empty.
import { Col, Form, Row, type FormInstance, type FormRule } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { FileItem } from '@/components/upload/upload-control';
import { useOrgTreeOptions, type OrgTreeOption } from '@/lib/org-options';
import { FieldControl } from './field-control';
import {
  GRID_COLUMNS, REVALIDATE_DEBOUNCE_MS, isChoiceKind, isFieldDisabled, isFieldHidden, labelWidthOf,
  type FormField, type FormValues,
} from './field-schema';
import { detailText, isEmptyValue, toFormValues, toSubmitValues } from './field-values';

export interface DynamicFormProps {
  fields: FormField[];
  /** edit (default) or the read-only detail of the same fields. */
  mode?: 'edit' | 'detail';
  /** The record shown or edited, as the server sends it; keep it stable (react-query data). */
  record?: FormValues;
  /** The form to submit or reset from outside (a dialog's buttons). */
  form?: FormInstance;
  /** Grid columns (of 24) of a field that does not say. */
  defaultSpan?: number;
  /** Called with the shaped values once every shown field is valid. */
  onSubmit?: (values: FormValues) => unknown;
  name?: string;
  /** Rendered after the fields inside the form (a submit button). */
  children?: ReactNode;
}

/** Is a required field's value missing? Regional pickers and ranges need both parts. */
export function isMissing(field: FormField, value: unknown): boolean {
  switch (field.kind) {
    case 'province-city': {
      const v = value as { provinceCode?: string; cityCode?: string } | undefined;
      return !v?.provinceCode || !v.cityCode;
    }
    case 'region': {
      const v = value as { province_value?: string; city_value?: string } | undefined;
      return !v?.province_value || !v.city_value;
    }
    case 'date-range':
    case 'date-time-range':
      return !Array.isArray(value) || !value[0] || !value[1];
    default:
      return isEmptyValue(value);
  }
}

function requiredMessageKey(field: FormField): string {
  if (field.kind === 'upload') return 'dynamicForm.uploadRequired';
  return isChoiceKind(field.kind) ? 'dynamicForm.selectRequired' : 'dynamicForm.inputRequired';
}

const labelCol = (field: FormField) => ({ flex: `${labelWidthOf(field)}px` });

function findOrgLabel(options: OrgTreeOption[], value: unknown): string | undefined {
  for (const option of options) {
    if (option.value === value) return option.label;
    const inChildren = option.children && findOrgLabel(option.children, value);
    if (inChildren) return inChildren;
  }
  return undefined;
}

function OrgDetail({ field, value }: { field: FormField; value: unknown }) {
  const options = useOrgTreeOptions();
  const list = Array.isArray(value) ? value : [value];
  const named = isEmptyValue(value) ? value : list.map((v) => findOrgLabel(options, v) ?? v);
  return <>{detailText({ ...field, kind: 'text' }, named)}</>;
}

function LoadedSelectDetail({ field, value }: { field: FormField; value: unknown }) {
  const loader = field.loadOptions as NonNullable<FormField['loadOptions']>;
  const { data } = useQuery({ queryKey: loader.key, queryFn: () => loader.load(), staleTime: 60_000 });
  return <>{detailText({ ...field, options: data ?? [] }, value)}</>;
}

function FilesDetail({ field, value }: { field: FormField; value: unknown }) {
  const files = (value as FileItem[] | undefined) ?? [];
  if (!files.length) return <>{detailText(field, files)}</>;
  return (
    <span className="fd-form__files">
      {files.map((file, i) => (
        <a key={`${file.url}-${i}`} href={file.url} target="_blank" rel="noopener noreferrer" style={{ marginRight: 12 }}>
          {file.name}
        </a>
      ))}
    </span>
  );
}

/** What the detail mode shows for one field. */
function DetailValue({ field, value, values }: { field: FormField; value: unknown; values: FormValues }): ReactNode {
  if (field.format) {
    const shown = field.format(value, values);
    return shown === null || shown === undefined || shown === '' ? detailText(field, undefined) : shown;
  }
  if (field.kind === 'org') return <OrgDetail field={field} value={value} />;
  if (field.kind === 'select' && field.loadOptions) return <LoadedSelectDetail field={field} value={value} />;
  if (field.kind === 'upload') return <FilesDetail field={field} value={value} />;
  return detailText(field, value);
}

function DetailForm({ fields, values, defaultSpan, name }: { fields: FormField[]; values: FormValues; defaultSpan: number; name?: string }) {
  return (
    <Form name={name} layout="horizontal" className="fd-form fd-form--detail" labelWrap>
      <Row gutter={16}>
        {fields
          .filter((field) => !isFieldHidden(field, values))
          .map((field) => (
            <Col key={field.name} span={field.span ?? defaultSpan}>
              <Form.Item label={field.label} labelCol={labelCol(field)} style={{ marginBottom: 12 }}>
                <span className="fd-form__value" data-field={field.name}>
                  <DetailValue field={field} value={values[field.name]} values={values} />
                </span>
              </Form.Item>
            </Col>
          ))}
      </Row>
    </Form>
  );
}

function EditForm({ fields, initial, form, defaultSpan, onSubmit, name, children }: { fields: FormField[]; initial: FormValues; form: FormInstance; defaultSpan: number; onSubmit?: DynamicFormProps['onSubmit']; name?: string; children?: ReactNode }) {
  const { t } = useTranslation();
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const uploading = useRef(new Set<string>());
  const watched = Form.useWatch((all: FormValues) => all, { form, preserve: true });
  const values = watched ?? initial;

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  // Fields are not checked on every keystroke: each is checked again once the
  // user has paused for REVALIDATE_DEBOUNCE_MS (a submit checks all at once).
  const revalidateLater = (changed: FormValues) => {
    for (const fieldName of Object.keys(changed)) {
      clearTimeout(timers.current.get(fieldName));
      timers.current.set(
        fieldName,
        setTimeout(() => {
          timers.current.delete(fieldName);
          // A field hidden meanwhile is not mounted: nothing to check.
          form.validateFields([fieldName]).catch(() => undefined);
        }, REVALIDATE_DEBOUNCE_MS),
      );
    }
  };

  const rulesOf = (field: FormField): FormRule[] => {
    const rules: FormRule[] = [];
    if (field.required) {
      const message = t(requiredMessageKey(field), { label: field.label });
      rules.push({ validator: (_, value: unknown) => (isMissing(field, value) ? Promise.reject(new Error(message)) : Promise.resolve()) });
    }
    if (field.kind === 'upload') {
      // A form cannot be validated while its files are still on the way.
      rules.push({ validator: () => (uploading.current.has(field.name) ? Promise.reject(new Error(t('upload.inProgress'))) : Promise.resolve()) });
    }
    return [...rules, ...(field.rules ?? [])];
  };

  const submit = async () => {
    for (const timer of timers.current.values()) clearTimeout(timer);
    timers.current.clear();
    await onSubmit?.(toSubmitValues(fields, form.getFieldsValue(true) as FormValues));
  };

  return (
    <Form
      form={form}
      name={name}
      layout="horizontal"
      className="fd-form"
      labelWrap
      initialValues={initial}
      validateTrigger={false}
      onValuesChange={revalidateLater}
      onFinish={() => void submit()}
    >
      <Row gutter={16}>
        {fields
          .filter((field) => !isFieldHidden(field, values))
          .map((field) => (
            <Col key={field.name} span={field.span ?? defaultSpan}>
              <Form.Item name={field.name} label={field.label} labelCol={labelCol(field)} required={field.required} rules={rulesOf(field)}>
                <FieldControl
                  field={field}
                  disabled={isFieldDisabled(field, values)}
                  onUploadBusy={(fieldName, busy) => (busy ? uploading.current.add(fieldName) : uploading.current.delete(fieldName))}
                />
              </Form.Item>
            </Col>
          ))}
      </Row>
      {children}
    </Form>
  );
}

/** Renders `fields` for editing (`mode="edit"`) or as a read-only detail (`mode="detail"`). */
export function DynamicForm({ fields, mode = 'edit', record, form: outer, defaultSpan = GRID_COLUMNS, onSubmit, name, children }: DynamicFormProps) {
  const [form] = Form.useForm(outer);
  // Only a new record resets the form: pages rebuild `fields` when the language
  // changes, and new labels must keep what the user typed.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const initial = useMemo(() => toFormValues(fields, record), [record]);
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current && mode === 'edit') form.resetFields();
    mounted.current = true;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form, initial]);
  if (mode === 'detail') return <DetailForm fields={fields} values={initial} defaultSpan={defaultSpan} name={name} />;
  return (
    <EditForm fields={fields} initial={initial} form={form} defaultSpan={defaultSpan} onSubmit={onSubmit} name={name}>
      {children}
    </EditForm>
  );
}
