import { Select, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAreaSource, type Area, type AreaSource } from './area-source';

/** The change a region picker emits (console spec §3). */
export interface RegionCityValue {
  province?: string;
  province_value?: string;
  city?: string;
  city_value?: string;
}

export interface RegionPickerProps {
  value?: RegionCityValue;
  onChange?: (value: RegionCityValue) => void;
  /** Select the first city once a region's cities load. */
  defaultFirstCity?: boolean;
  source?: AreaSource;
  disabled?: boolean;
  width?: number;
}

/** Region/city picker scoped to operating organisations: choosing a region clears the city and emits. */
export function RegionPicker({ value, onChange, defaultFirstCity, source, disabled, width = 160 }: RegionPickerProps) {
  const { t } = useTranslation();
  const ctxSource = useAreaSource();
  const areas = source ?? ctxSource;
  const [regions, setRegions] = useState<Area[]>([]);
  const [cities, setCities] = useState<Area[]>([]);
  const region = value?.province;

  useEffect(() => {
    areas.regions().then(setRegions, () => setRegions([]));
  }, [areas]);

  useEffect(() => {
    if (!region) {
      setCities([]);
      return;
    }
    let live = true;
    areas.regionCities(region).then(
      (list) => {
        if (!live) return;
        setCities(list);
        if (defaultFirstCity && !value?.city && list[0]) {
          onChange?.({ ...value, city: list[0].code, city_value: list[0].name });
        }
      },
      () => live && setCities([]),
    );
    return () => {
      live = false;
    };
    // Reload only when the region changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [areas, region]);

  return (
    <Space.Compact>
      <Select
        style={{ width }}
        allowClear
        disabled={disabled}
        placeholder={t('area.region')}
        value={region}
        options={regions.map((r) => ({ value: r.code, label: r.name }))}
        onChange={(code?: string) => onChange?.({ province: code, province_value: regions.find((r) => r.code === code)?.name, city: undefined, city_value: undefined })}
        aria-label={t('area.region')}
      />
      <Select
        style={{ width }}
        allowClear
        disabled={disabled || !region}
        placeholder={t('area.city')}
        value={value?.city}
        options={cities.map((c) => ({ value: c.code, label: c.name }))}
        onChange={(code?: string) => onChange?.({ ...value, city: code, city_value: cities.find((c) => c.code === code)?.name })}
        aria-label={t('area.city')}
      />
    </Space.Compact>
  );
}
