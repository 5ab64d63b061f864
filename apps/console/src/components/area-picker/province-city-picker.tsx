import { Select, Space } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WHOLE_COUNTRY_CODE } from '@/config/constants';
import { useAreaSource, type Area, type AreaSource } from './area-source';

export interface ProvinceCityValue {
  provinceCode?: string;
  provinceId?: string;
  provinceName?: string;
  cityCode?: string;
  cityId?: string;
  cityName?: string;
  province_value?: string;
  city_value?: string;
}

export interface ProvinceCityPickerProps {
  value?: ProvinceCityValue;
  onChange?: (value: ProvinceCityValue) => void;
  /** Offer 全国 (code and id -1) first. */
  wholeCountry?: boolean;
  /** Select the first province and city when there is no value. */
  defaultFirst?: boolean;
  /** Debounce user changes by 500 ms. */
  debounce?: boolean;
  source?: AreaSource;
  disabled?: boolean;
  width?: number;
}

export const DEBOUNCE_MS = 500;

/** The single city of the whole country. */
export const wholeCountryArea = (name: string): Area => ({ code: WHOLE_COUNTRY_CODE, id: WHOLE_COUNTRY_CODE, name });

export function composeValue(province?: Area, city?: Area): ProvinceCityValue {
  return {
    provinceCode: province?.code,
    provinceId: province?.id,
    provinceName: province?.name,
    province_value: province?.code,
    cityCode: city?.code,
    cityId: city?.id,
    cityName: city?.name,
    city_value: city?.code,
  };
}

/**
 * Province/city picker (console spec §4): choosing a province clears the city and reloads
 * cities; clearing it clears both; 全国 has the single city 全国. Changes made by
 * the user are emitted (optionally debounced); changes of `value` are not.
 */
export function ProvinceCityPicker({ value, onChange, wholeCountry, defaultFirst, debounce, source, disabled, width = 160 }: ProvinceCityPickerProps) {
  const { t } = useTranslation();
  const ctxSource = useAreaSource();
  const areas = source ?? ctxSource;
  const country = wholeCountryArea(t('area.wholeCountry'));
  const [provinces, setProvinces] = useState<Area[]>([]);
  const [cities, setCities] = useState<Area[]>([]);
  const [provinceCode, setProvinceCode] = useState<string | undefined>(value?.provinceCode);
  const [cityCode, setCityCode] = useState<string | undefined>(value?.cityCode);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const loadCities = async (code: string | undefined): Promise<Area[]> => {
    if (!code) return [];
    if (code === WHOLE_COUNTRY_CODE) return [country];
    try {
      return await areas.cities(code);
    } catch {
      return []; // logged only (console spec §8)
    }
  };

  const emit = (next: ProvinceCityValue) => {
    if (!onChange) return;
    clearTimeout(timer.current);
    if (debounce) timer.current = setTimeout(() => onChange(next), DEBOUNCE_MS);
    else onChange(next);
  };

  useEffect(() => () => clearTimeout(timer.current), []);

  // Lists on mount, with the optional first-entry default (not emitted: programmatic).
  useEffect(() => {
    let live = true;
    void (async () => {
      let list: Area[] = [];
      try {
        list = await areas.provinces();
      } catch {
        list = [];
      }
      if (!live) return;
      const all = wholeCountry ? [country, ...list] : list;
      setProvinces(all);
      let code = value?.provinceCode;
      if (!code && defaultFirst) code = all[0]?.code;
      const cityList = await loadCities(code);
      if (!live) return;
      setProvinceCode(code);
      setCities(cityList);
      setCityCode(value?.cityCode ?? (defaultFirst || code === WHOLE_COUNTRY_CODE ? cityList[0]?.code : undefined));
    })();
    return () => {
      live = false;
    };
    // Loaded once per source; value changes are synced below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [areas, wholeCountry]);

  // Programmatic value changes: follow them silently.
  useEffect(() => {
    if (value?.provinceCode === provinceCode && value?.cityCode === cityCode) return;
    setProvinceCode(value?.provinceCode);
    setCityCode(value?.cityCode);
    void loadCities(value?.provinceCode).then(setCities);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value?.provinceCode, value?.cityCode]);

  const chooseProvince = async (code: string | undefined) => {
    setProvinceCode(code);
    setCityCode(undefined);
    setCities([]);
    const province = provinces.find((p) => p.code === code);
    if (!code) {
      emit(composeValue());
      return;
    }
    const list = await loadCities(code);
    setCities(list);
    if (code === WHOLE_COUNTRY_CODE) {
      setCityCode(country.code);
      emit(composeValue(province, country));
    } else {
      emit(composeValue(province));
    }
  };

  const chooseCity = (code: string | undefined) => {
    setCityCode(code);
    emit(composeValue(provinces.find((p) => p.code === provinceCode), cities.find((c) => c.code === code)));
  };

  return (
    <Space.Compact>
      <Select
        style={{ width }}
        allowClear
        showSearch={{ optionFilterProp: 'label' }}
        disabled={disabled}
        placeholder={t('area.province')}
        value={provinceCode}
        options={provinces.map((p) => ({ value: p.code, label: p.name }))}
        onChange={(code?: string) => void chooseProvince(code)}
        aria-label={t('area.province')}
      />
      <Select
        style={{ width }}
        allowClear
        showSearch={{ optionFilterProp: 'label' }}
        disabled={disabled || !provinceCode}
        placeholder={t('area.city')}
        value={cityCode}
        options={cities.map((c) => ({ value: c.code, label: c.name }))}
        onChange={(code?: string) => chooseCity(code)}
        aria-label={t('area.city')}
      />
    </Space.Compact>
  );
}
