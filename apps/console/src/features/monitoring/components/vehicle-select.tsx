import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '@/lib/api-client';

const SEARCH_DEBOUNCE_MS = 500;
const PAGE = 20;
/** Labels of chosen vehicles are looked up one by one up to this many; beyond, ids show. */
const LABEL_LOOKUPS = 50;

/** Vehicles whose plate or VIN contains what was typed (debounced), as options labelled by plate. */
function useVehicleSearch() {
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(typed.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const found = useQuery({
    queryKey: ['vehicles', 'picker', keyword],
    queryFn: async () => (await api.get('/api/v1/vehicles', { params: { query: { page: 1, size: PAGE, keyword: keyword || undefined } }, silent: true })).list.map((v) => ({ value: v.id, label: v.plateNumber })),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  return { found, setTyped };
}

export interface VehicleOption {
  value: string;
  label: string;
}

/** One vehicle, searched by plate or VIN; `current` shows the chosen one before any search. */
export function VehiclePickOne({ value, onChange, current, placeholder }: { value?: string; onChange?: (option: VehicleOption | undefined) => void; current?: VehicleOption; placeholder?: string }) {
  const { t } = useTranslation();
  const { found, setTyped } = useVehicleSearch();
  const options = useMemo(() => {
    const list = found.data ?? [];
    return current && !list.some((o) => o.value === current.value) ? [current, ...list] : list;
  }, [found.data, current]);
  return (
    <Select
      style={{ width: 200 }}
      allowClear
      value={value}
      onChange={(id: string | undefined) => onChange?.(options.find((o) => o.value === id))}
      showSearch={{ filterOption: false, onSearch: setTyped }}
      options={options}
      loading={found.isFetching}
      placeholder={placeholder}
      notFoundContent={found.isFetching ? t('common.loading') : t('common.noData')}
      data-testid="track-vehicle"
    />
  );
}

/** Several vehicles, searched by part of the plate or VIN, shown by plate. */
export function VehicleSelect({ id, value, onChange, placeholder }: { id?: string; value?: string[]; onChange?: (ids: string[]) => void; placeholder?: string }) {
  const { t } = useTranslation();
  const { found, setTyped } = useVehicleSearch();
  const chosen = useQueries({
    queries: (value ?? []).slice(0, LABEL_LOOKUPS).map((vehicleId) => ({
      queryKey: ['vehicles', 'detail', vehicleId],
      queryFn: () => api.get('/api/v1/vehicles/{id}', { params: { path: { id: vehicleId } }, silent: true }),
      staleTime: 60_000,
    })),
  });
  const options = useMemo(() => {
    const byId = new Map((found.data ?? []).map((o) => [o.value, o]));
    for (const q of chosen) if (q.data && !byId.has(q.data.id)) byId.set(q.data.id, { value: q.data.id, label: q.data.plateNumber });
    return [...byId.values()];
  }, [found.data, chosen]);
  return (
    <Select
      id={id}
      mode="multiple"
      allowClear
      value={value}
      onChange={(ids: string[]) => onChange?.(ids)}
      showSearch={{ filterOption: false, onSearch: setTyped }}
      options={options}
      loading={found.isFetching}
      placeholder={placeholder}
      notFoundContent={found.isFetching ? t('common.loading') : t('common.noData')}
      maxTagCount={20}
      data-testid="fence-vehicles"
    />
  );
}
