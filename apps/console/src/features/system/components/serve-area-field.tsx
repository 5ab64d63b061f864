import { Cascader } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAreaSource, type Area } from '@/components/area-picker/area-source';

/** A province-level code: its first two digits, then 0000. */
export const provinceOf = (cityCode: string): string => `${cityCode.slice(0, 2)}0000`;

/** A municipality (北京市, 上海市…) serves under its own province-level code: it is picked as a city itself. */
export const isMunicipality = (province: Area): boolean => province.name.endsWith('市');

/** A city code as its cascader path: province then city, or the municipality alone. */
export const pathOfCity = (cityCode: string): string[] => (provinceOf(cityCode) === cityCode ? [cityCode] : [provinceOf(cityCode), cityCode]);

/** The cascader's checked paths back as city codes, in the order picked. */
export const citiesOfPaths = (paths: readonly (readonly string[])[]): string[] => [...new Set(paths.map((p) => p[p.length - 1]))];

interface AreaOption {
  value: string;
  label: string;
  isLeaf?: boolean;
  children?: AreaOption[];
}

export interface ServeAreaFieldProps {
  /** GB/T 2260 city codes. */
  value?: string[];
  onChange?: (cityCodes: string[]) => void;
  id?: string;
  disabled?: boolean;
}

/**
 * The cities an organisation serves (服务区域), picked province by province: a
 * province opens its cities, a municipality is a city itself. The provinces of
 * the cities already set are opened at once, so a value shows as names.
 */
export function ServeAreaField({ value, onChange, id, disabled }: ServeAreaFieldProps) {
  const { t } = useTranslation();
  const source = useAreaSource();
  const [provinces, setProvinces] = useState<Area[]>([]);
  const [cities, setCities] = useState<Record<string, Area[]>>({});
  const codes = useMemo(() => value ?? [], [value]);

  useEffect(() => {
    let live = true;
    void source.provinces().then((list) => live && setProvinces(list));
    return () => {
      live = false;
    };
  }, [source]);

  const loadCities = (provinceCode: string) =>
    source.cities(provinceCode).then((list) => setCities((loaded) => (loaded[provinceCode] ? loaded : { ...loaded, [provinceCode]: list })));

  useEffect(() => {
    const missing = [...new Set(codes.map(provinceOf))].filter((p) => p !== '' && !cities[p] && !codes.includes(p));
    missing.forEach((p) => void loadCities(p));
    // Only the value's provinces matter here; `cities` grows as they arrive.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [codes]);

  const options = useMemo<AreaOption[]>(
    () =>
      provinces.map((p) =>
        isMunicipality(p)
          ? { value: p.code, label: p.name, isLeaf: true }
          : { value: p.code, label: p.name, isLeaf: false, ...(cities[p.code] ? { children: cities[p.code].map((c) => ({ value: c.code, label: c.name, isLeaf: true })) } : {}) },
      ),
    [provinces, cities],
  );

  return (
    <Cascader<AreaOption>
      id={id}
      multiple
      showSearch
      allowClear
      disabled={disabled}
      showCheckedStrategy={Cascader.SHOW_CHILD}
      placeholder={t('systemSettings.org.serveAreasPlaceholder')}
      options={options}
      loadData={(selected) => {
        const province = selected[selected.length - 1];
        if (province && !cities[province.value]) void loadCities(province.value);
      }}
      value={codes.map(pathOfCity)}
      onChange={(paths) => onChange?.(citiesOfPaths((paths ?? []) as string[][]))}
      style={{ width: '100%' }}
      data-testid="org-serve-areas"
    />
  );
}
