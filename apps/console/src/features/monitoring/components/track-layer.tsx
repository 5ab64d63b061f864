/** A played-back track on the map: the route, the part travelled, stops, speeding stretches and the vehicle now. */
import * as L from 'leaflet';
import { useEffect, useMemo, useRef } from 'react';
import { useMapApi } from '@/components/map/map-view';
import type { TrackSpeeding, TrackStop } from '../api/track';
import { indexAtTime, interpolate, type TrackPoint } from './track-player';

/** The travelled line is redrawn at most this often (a week of fixes is tens of thousands of points). */
const TRAVELLED_REDRAW_MS = 100;

export interface TrackLayerProps {
  points: readonly TrackPoint[];
  stops: readonly TrackStop[];
  speeding: readonly TrackSpeeding[];
  position: number;
  /** Keep the vehicle in view (while playing; a pan on load would undo the fit). */
  follow?: boolean;
  onStop?: (stop: TrackStop) => void;
  stopLabel: (stop: TrackStop) => string;
}

export function TrackLayer({ points, stops, speeding, position, follow = false, onStop, stopLabel }: TrackLayerProps) {
  const api = useMapApi();
  const mapped = useMemo(() => (api ? points.map((p) => api.toMap(p)) : []), [api, points]);
  const layers = useRef<{ travelled?: L.Polyline; vehicle?: L.CircleMarker; lastDraw: number; lastIndex: number }>({ lastDraw: 0, lastIndex: -1 });
  const onStopRef = useRef(onStop);
  onStopRef.current = onStop;

  useEffect(() => {
    if (!api || !mapped.length) return;
    const held = layers.current;
    const group = L.layerGroup().addTo(api.map);
    L.polyline(mapped, { color: '#8fb3ff', weight: 5, opacity: 0.9, interactive: false }).addTo(group);
    for (const s of speeding) {
      const a = indexAtTime(points, s.from);
      const b = indexAtTime(points, s.to);
      if (b > a) L.polyline(mapped.slice(a, b + 1), { color: '#e5252a', weight: 6, interactive: false }).addTo(group);
    }
    held.travelled = L.polyline([], { color: '#237804', weight: 4, interactive: false }).addTo(group);
    for (const stop of stops) {
      const marker = L.marker(api.toMap(stop), { icon: L.divIcon({ className: 'fd-track-stop', html: 'P', iconSize: [20, 20] }) }).addTo(group);
      marker.bindTooltip(stopLabel(stop));
      marker.on('click', () => onStopRef.current?.(stop));
    }
    L.circleMarker(mapped[0], { radius: 6, color: '#fff', weight: 2, fillColor: '#237804', fillOpacity: 1, interactive: false }).addTo(group);
    L.circleMarker(mapped[mapped.length - 1], { radius: 6, color: '#fff', weight: 2, fillColor: '#e5252a', fillOpacity: 1, interactive: false }).addTo(group);
    held.vehicle = L.circleMarker(mapped[0], { radius: 8, color: '#fff', weight: 3, fillColor: '#1764ff', fillOpacity: 1, interactive: false }).addTo(group);
    held.lastIndex = -1;
    // The size Leaflet measured at start may predate the page's layout.
    api.map.invalidateSize({ pan: false });
    api.map.fitBounds(L.latLngBounds(mapped).pad(0.1), { maxZoom: 16 });
    return () => {
      group.remove();
      held.travelled = undefined;
      held.vehicle = undefined;
    };
  }, [api, mapped, points, stops, speeding, stopLabel]);

  useEffect(() => {
    const l = layers.current;
    if (!api || !l.vehicle || !l.travelled) return;
    const here = interpolate(points, position);
    if (!here) return;
    const at = api.toMap(here);
    l.vehicle.setLatLng(at);
    const index = Math.floor(position);
    const now = performance.now();
    if (index !== l.lastIndex && (now - l.lastDraw > TRAVELLED_REDRAW_MS || Math.abs(index - l.lastIndex) > 1)) {
      l.travelled.setLatLngs([...mapped.slice(0, index + 1), at]);
      l.lastIndex = index;
      l.lastDraw = now;
    }
    // Keep the vehicle in view while it plays.
    if (follow && !api.map.getBounds().pad(-0.1).contains(at)) api.map.panTo(at, { animate: false });
  }, [api, points, mapped, position, follow]);

  return null;
}
