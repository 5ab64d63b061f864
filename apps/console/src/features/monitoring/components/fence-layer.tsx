/**
 * A fence on the map, and its drawing: click the map to place a circle's centre
 * or add a polygon's or route's next point; drag the handles to move points,
 * the centre, or the circle's radius (the handle east of the centre); right-click
 * a point to remove it. Geometry stays WGS-84; the map converts for its tiles.
 */
import * as L from 'leaflet';
import { useEffect, useRef } from 'react';
import type { LatLng } from '@/components/map/gcj02';
import { useMapApi } from '@/components/map/map-view';
import type { FenceGeometry } from './fence-form';
import { corridorSegments, distanceM, eastOf } from './fence-geometry';

const STYLE = { color: '#1764ff', weight: 2, fillColor: '#1764ff', fillOpacity: 0.15 };
const handleIcon = (kind: 'point' | 'center' | 'radius') => L.divIcon({ className: `fd-fence-handle fd-fence-handle--${kind}`, iconSize: [14, 14] });

export interface FenceLayerProps {
  geometry: FenceGeometry;
  editable?: boolean;
  onChange?: (next: FenceGeometry) => void;
  /** Zoom to the fence when it first has a shape (detail pages). */
  fit?: boolean;
  color?: string;
}

export function FenceLayer({ geometry, editable = false, onChange, fit = false, color }: FenceLayerProps) {
  const api = useMapApi();
  const latest = useRef({ geometry, onChange });
  latest.current = { geometry, onChange };
  const fitted = useRef(false);

  // Clicks on the map build the shape.
  useEffect(() => {
    if (!api || !editable) return;
    const onClick = (e: L.LeafletMouseEvent) => {
      const { geometry: g, onChange: change } = latest.current;
      const p = api.fromMap(e.latlng);
      if (g.shape === 'circle') change?.({ ...g, center: p });
      else change?.({ ...g, points: [...g.points, p] });
    };
    api.map.on('click', onClick);
    api.map.getContainer().style.cursor = 'crosshair';
    return () => {
      api.map.off('click', onClick);
      api.map.getContainer().style.cursor = '';
    };
  }, [api, editable]);

  // The shape and its handles, drawn again when it changes.
  useEffect(() => {
    if (!api) return;
    const group = L.layerGroup().addTo(api.map);
    const style = color ? { ...STYLE, color, fillColor: color } : STYLE;
    const change = (next: FenceGeometry) => latest.current.onChange?.(next);
    const toMap = (p: LatLng) => api.toMap(p);
    const handle = (at: LatLng, kind: 'point' | 'center' | 'radius', onDrag: (p: LatLng) => void, onRemove?: () => void) => {
      const marker = L.marker(toMap(at), { icon: handleIcon(kind), draggable: true, keyboard: false, bubblingMouseEvents: false });
      marker.on('dragend', () => onDrag(api.fromMap(marker.getLatLng())));
      if (onRemove) marker.on('contextmenu', onRemove);
      marker.addTo(group);
    };
    const g = geometry;
    let bounds: L.LatLngBounds | undefined;
    if (g.shape === 'circle' && g.center) {
      const circle = L.circle(toMap(g.center), { radius: g.radiusM ?? 0, ...style, interactive: false }).addTo(group);
      bounds = circle.getBounds();
      if (editable) {
        handle(g.center, 'center', (p) => change({ ...latest.current.geometry, center: p }));
        handle(eastOf(g.center, g.radiusM ?? 0), 'radius', (p) => {
          const center = latest.current.geometry.center;
          if (center) change({ ...latest.current.geometry, radiusM: Math.round(distanceM(center, p)) });
        });
      }
    } else if (g.shape !== 'circle' && g.points.length) {
      const line = g.points.map(toMap);
      if (g.shape === 'polygon') {
        (g.points.length >= 3 ? L.polygon(line, { ...style, interactive: false }) : L.polyline(line, { ...style, dashArray: '4 4', interactive: false })).addTo(group);
      } else {
        const width = g.corridorWidthM ?? 0;
        for (const rect of corridorSegments(g.points, width)) L.polygon(rect.map(toMap), { ...style, weight: 0, interactive: false }).addTo(group);
        for (const p of g.points) L.circle(toMap(p), { radius: width / 2, ...style, weight: 0, interactive: false }).addTo(group);
        L.polyline(line, { color: style.color, weight: 2, interactive: false }).addTo(group);
      }
      bounds = L.latLngBounds(line);
      if (editable) {
        g.points.forEach((p, i) =>
          handle(
            p,
            'point',
            (moved) => {
              const points = [...latest.current.geometry.points];
              points[i] = moved;
              change({ ...latest.current.geometry, points });
            },
            () => change({ ...latest.current.geometry, points: latest.current.geometry.points.filter((_, j) => j !== i) }),
          ),
        );
      }
    }
    if (fit && bounds && !fitted.current && bounds.isValid()) {
      fitted.current = true;
      api.map.invalidateSize({ pan: false });
      api.map.fitBounds(bounds.pad(0.3), { maxZoom: 16 });
    }
    return () => {
      group.remove();
    };
  }, [api, geometry, editable, fit, color]);

  return null;
}
