import { Cascader, Empty, Spin } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { CustomFieldProps } from '@/components/filter-bar/filter-bar';
import { choiceOf, pathOf, serveOrgCityKeyOf, serveOrgCityOptions, serveOrgCityText, useServeOrgTree, type ServeOrgCity, type ServeOrgCityKey, type ServeOrgCityOption } from './serve-org-api';

export interface ServeOrgCityCascaderProps {
  /** The choice shown; its organisation and city are enough. */
  value?: ServeOrgCityKey;
  /** The user's choice: a city and the organisation serving it; `undefined` when cleared. */
  onChange?: (value: ServeOrgCity | undefined) => void;
  placeholder?: string;
  disabled?: boolean;
  width?: number;
}

/**
 * Service-organisation city cascader (console spec §2): the serve organisations the
 * user's data scope reaches, as their tree, each with the cities it serves; a choice
 * is a city with the organisation serving it. While loading it says so; without
 * serve organisations (or when the look-up fails) it shows its empty state.
 */
export function ServeOrgCityCascader({ value, onChange, placeholder, disabled, width = 260 }: ServeOrgCityCascaderProps) {
  const { t } = useTranslation();
  const { data, isPending } = useServeOrgTree();
  const options = useMemo(() => serveOrgCityOptions(data ?? []), [data]);
  const path = useMemo(() => pathOf(data ?? [], value), [data, value]);
  const label = placeholder ?? t('area.serveOrgCity');
  return (
    <Cascader<ServeOrgCityOption>
      style={{ width }}
      aria-label={label}
      allowClear
      showSearch
      disabled={disabled}
      loading={isPending}
      placeholder={isPending ? t('area.serveOrgLoading') : label}
      options={options}
      value={path}
      notFoundContent={isPending ? <Spin size="small" aria-label={t('area.serveOrgLoading')} /> : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('area.serveOrgEmpty')} />}
      onChange={(_, selected) => onChange?.(choiceOf(selected))}
    />
  );
}

/**
 * The cascader as a filter-bar field (`type: ServeOrgCityField`). Its value is the
 * choice as `orgId:cityCode` text, so the list keeps it in the URL like any filter.
 */
export function ServeOrgCityField({ value, onChange, field }: CustomFieldProps) {
  return (
    <ServeOrgCityCascader
      value={serveOrgCityKeyOf(value)}
      onChange={(choice) => onChange?.(choice ? serveOrgCityText(choice) : undefined)}
      placeholder={field.placeholder}
      width={field.width}
    />
  );
}
