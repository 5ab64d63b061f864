import { Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useVehicleOptions, type PickerOption } from '@/lib/pickers';

/** Typing waits this long before the vehicles are searched (console spec §4 text debounce). */
export const VEHICLE_SEARCH_DEBOUNCE_MS = 500;

export interface VehiclePickerProps {
  /** Given by the form item, so its label names the picker. */
  id?: string;
  value?: string;
  onChange?: (value: string | undefined) => void;
  disabled?: boolean;
  /** The vehicle already chosen (editing), shown by its plate before any search. */
  current?: PickerOption;
  placeholder?: string;
  'data-testid'?: string;
}

/** One vehicle of the enterprise, searched by part of its plate or VIN and shown by plate. */
export function VehiclePicker({ id, value, onChange, disabled, current, placeholder, 'data-testid': testId }: VehiclePickerProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(typed.trim()), VEHICLE_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const { data, isFetching } = useVehicleOptions(keyword, !disabled);
  const options = useMemo(() => {
    const found = data ?? [];
    return current && !found.some((o) => o.value === current.value) ? [current, ...found] : found;
  }, [data, current]);
  return (
    <Select
      id={id}
      showSearch={{ filterOption: false, onSearch: setTyped }}
      allowClear
      value={value}
      onChange={(v: string | undefined) => onChange?.(v)}
      disabled={disabled}
      options={options}
      loading={isFetching}
      placeholder={placeholder ?? t('vehicles.usage.vehiclePlaceholder')}
      notFoundContent={isFetching ? t('common.loading') : t('common.noData')}
      data-testid={testId}
    />
  );
}
