/** Dynamic-form controls of the risk forms: a searched vehicle or driver, and a point picked on the map. */
import { Button, Select, Space, Typography } from 'antd';
import * as L from 'leaflet';
import { useEffect, useMemo, useState, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import type { CustomControlProps } from '@/components/dynamic-form/field-schema';
import { MapView, useMapApi } from '@/components/map/map-view';
import type { PickerOption } from '@/lib/pickers';

/** Typing waits this long before searching (console spec §4 text debounce). */
export const SEARCH_DEBOUNCE_MS = 500;

type UseOptions = (keyword: string) => { data?: PickerOption[]; isFetching: boolean };

/**
 * A select searching as the user types; `current` (the record's own choice)
 * keeps its label before any search lists it.
 */
export function searchControl(useOptions: UseOptions, current: PickerOption | undefined, testId: string): ComponentType<CustomControlProps> {
  return function SearchControl({ value, onChange, disabled, field }: CustomControlProps) {
    const { t } = useTranslation();
    const [typed, setTyped] = useState('');
    const [keyword, setKeyword] = useState('');
    useEffect(() => {
      const timer = setTimeout(() => setKeyword(typed.trim()), SEARCH_DEBOUNCE_MS);
      return () => clearTimeout(timer);
    }, [typed]);
    const found = useOptions(keyword);
    const options = useMemo(() => {
      const list = found.data ?? [];
      return current && !list.some((o) => o.value === current.value) ? [current, ...list] : list;
    }, [found.data]);
    return (
      <Select
        showSearch={{ filterOption: false, onSearch: setTyped }}
        allowClear
        value={(value as string | undefined) || undefined}
        onChange={(v: string | undefined) => onChange?.(v ?? '')}
        disabled={disabled}
        options={options}
        loading={found.isFetching}
        placeholder={field.placeholder ?? t('common.pleaseSelect')}
        aria-label={field.label}
        data-testid={testId}
      />
    );
  };
}

export interface GeoPoint {
  lat: number;
  lng: number;
}

function PointLayer({ point, onPick, disabled }: { point?: GeoPoint; onPick: (p: GeoPoint) => void; disabled?: boolean }) {
  const api = useMapApi();
  useEffect(() => {
    if (!api || disabled) return;
    const click = (e: L.LeafletMouseEvent) => onPick(api.fromMap(e.latlng));
    api.map.on('click', click);
    return () => {
      api.map.off('click', click);
    };
  }, [api, onPick, disabled]);
  useEffect(() => {
    if (!api || !point) return;
    const marker = L.circleMarker(api.toMap(point), { radius: 8, color: '#fff', weight: 3, fillColor: '#e5252a', fillOpacity: 1, interactive: false }).addTo(api.map);
    return () => {
      marker.remove();
    };
  }, [api, point]);
  return null;
}

const coordinates = (p: GeoPoint) => `${p.lng.toFixed(6)}, ${p.lat.toFixed(6)}`;

/** The place on the shared map: a click sets the WGS-84 point, shown under the map. */
export function PointControl({ value, onChange, disabled }: CustomControlProps) {
  const { t } = useTranslation();
  const point = value as GeoPoint | null | undefined;
  return (
    <div data-testid="accident-point">
      <MapView style={{ height: 240 }} center={point ?? undefined} zoom={point ? 15 : undefined}>
        <PointLayer point={point ?? undefined} onPick={(p) => onChange?.(p)} disabled={disabled} />
      </MapView>
      <Space style={{ marginTop: 4 }}>
        <Typography.Text type="secondary">{point ? coordinates(point) : t('risk:accident.pointHint')}</Typography.Text>
        {point && !disabled ? (
          <Button type="link" size="small" onClick={() => onChange?.(null)}>
            {t('risk:accident.clearPoint')}
          </Button>
        ) : null}
      </Space>
    </div>
  );
}

/** A point in the read-only detail: its coordinates, '-' when none. */
export const pointText = (value: unknown) => (value && typeof value === 'object' && 'lat' in value ? coordinates(value as GeoPoint) : '-');
