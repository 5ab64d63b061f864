// The edit control of one declared field (the dynamic form builder's edit mode):
// the builder wraps it in a Form.Item, which passes `value` and `onChange`. A
// domain form never renders this itself; it declares `FormField`s and a kind
// picks the control here (a `custom` kind brings its own `control`).
import { DatePicker, Input, InputNumber, Radio, Select, TreeSelect } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { RANGE_DEFAULT_TIMES } from '@/components/filter-bar/filter-values';
import { ProvinceCityPicker } from '@/components/area-picker/province-city-picker';
import { RegionPicker } from '@/components/area-picker/region-picker';
import { UploadControl } from '@/components/upload/upload-control';
import { uploaderFor } from '@/lib/files';
import { toFen, toYuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import { NUMBER_MAX, NUMBER_MIN, type FieldOption, type FormField } from './field-schema';

// Form.Item injects `value` and `onChange` typed by the control it wraps.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Injected = { value?: any; onChange?: (...args: any[]) => void; id?: string };

export interface FieldControlProps extends Injected {
  field: FormField;
  disabled?: boolean;
  /** Told whether an upload still has files on the way (the form refuses to submit then). */
  onUploadBusy?: (name: string, busy: boolean) => void;
}

function optionsOf(options: FieldOption[]) {
  return options.map((o) => ({
    value: o.value,
    disabled: o.disabled,
    label: o.rightLabel ? (
      <span className="fd-form__option">
        {o.label}
        <span className="fd-form__option-note" style={{ float: 'right', opacity: 0.65 }}>
          {o.rightLabel}
        </span>
      </span>
    ) : (
      o.label
    ),
  }));
}

function SelectControl({ field, disabled, placeholder, ...control }: FieldControlProps & { placeholder: string }) {
  const loaded = useQuery({
    queryKey: field.loadOptions?.key ?? ['dynamic-form', 'options', field.name],
    queryFn: () => (field.loadOptions as NonNullable<FormField['loadOptions']>).load(),
    enabled: !!field.loadOptions,
    staleTime: 60_000,
  });
  const options = field.loadOptions ? (loaded.data ?? []) : (field.options ?? []);
  return (
    <Select
      {...control}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      disabled={disabled}
      loading={loaded.isLoading}
      mode={field.multiple ? 'multiple' : undefined}
      options={optionsOf(options)}
      placeholder={placeholder}
    />
  );
}

function OrgControl({ field, disabled, placeholder, ...control }: FieldControlProps & { placeholder: string }) {
  const options = useOrgTreeOptions();
  return <TreeSelect {...control} allowClear disabled={disabled} treeData={options} multiple={field.multiple} placeholder={placeholder} showSearch={{ treeNodeFilterProp: 'title' }} />;
}

/** Money is kept in fen; people type yuan with two decimals. */
function MoneyFenControl({ field, disabled, value, onChange, id }: FieldControlProps) {
  return (
    <InputNumber<number>
      id={id}
      style={{ width: '100%' }}
      disabled={disabled}
      min={field.min === undefined ? 0 : field.min / 100}
      max={field.max === undefined ? undefined : field.max / 100}
      precision={2}
      value={toYuan(value as number | null | undefined)}
      onChange={(yuanValue) => onChange?.(yuanValue === null ? null : toFen(yuanValue))}
      suffix={field.unit ?? '元'}
    />
  );
}

export function FieldControl({ field, disabled, onUploadBusy, ...control }: FieldControlProps) {
  const { t } = useTranslation();
  const input = field.placeholder ?? t('common.pleaseInput');
  const choose = field.placeholder ?? t('common.pleaseSelect');
  switch (field.kind) {
    case 'text':
      return <Input {...control} allowClear disabled={disabled} maxLength={field.maxLength} placeholder={input} suffix={field.unit} />;
    case 'textarea':
      return <Input.TextArea {...control} disabled={disabled} maxLength={field.maxLength} showCount={!!field.maxLength} autoSize={{ minRows: 3, maxRows: 8 }} placeholder={input} />;
    case 'number':
      return (
        <InputNumber
          {...control}
          style={{ width: '100%' }}
          disabled={disabled}
          min={field.min ?? NUMBER_MIN}
          max={field.max ?? NUMBER_MAX}
          precision={field.precision}
          placeholder={input}
          suffix={field.unit}
        />
      );
    case 'money-fen':
      return <MoneyFenControl {...control} field={field} disabled={disabled} />;
    case 'select':
      return <SelectControl {...control} field={field} disabled={disabled} placeholder={choose} />;
    case 'radio':
      return <Radio.Group {...control} disabled={disabled} options={optionsOf(field.options ?? [])} />;
    case 'date':
      return <DatePicker {...control} style={{ width: '100%' }} disabled={disabled} placeholder={choose} />;
    case 'date-time':
      return <DatePicker {...control} showTime style={{ width: '100%' }} disabled={disabled} placeholder={choose} />;
    case 'date-range':
      return <DatePicker.RangePicker {...control} style={{ width: '100%' }} disabled={disabled} separator={t('filter.to')} />;
    case 'date-time-range':
      return <DatePicker.RangePicker {...control} showTime={{ defaultOpenValue: RANGE_DEFAULT_TIMES }} style={{ width: '100%' }} disabled={disabled} separator={t('filter.to')} />;
    case 'upload': {
      const upload = field.upload;
      if (!upload) throw new Error(`upload field "${field.name}" needs upload.purpose`);
      return (
        <UploadControl
          {...control}
          upload={uploaderFor(upload.purpose)}
          limit={upload.limit}
          types={upload.types}
          maxSizeMb={upload.maxSizeMb}
          pictureCard={upload.pictureCard}
          detail={disabled}
          multiple={(upload.limit ?? 2) > 1}
          onBusyChange={(busy) => onUploadBusy?.(field.name, busy)}
        />
      );
    }
    case 'org':
      return <OrgControl {...control} field={field} disabled={disabled} placeholder={choose} />;
    case 'province-city':
      return <ProvinceCityPicker {...control} disabled={disabled} />;
    case 'region':
      return <RegionPicker {...control} disabled={disabled} />;
    case 'custom': {
      const Custom = field.control;
      if (!Custom) throw new Error(`custom field "${field.name}" needs a control`);
      return <Custom {...control} field={field} disabled={disabled} />;
    }
  }
}
