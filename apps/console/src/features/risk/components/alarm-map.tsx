/** The alarm's position and the track around it on the shared map. */
import * as L from 'leaflet';
import { useEffect } from 'react';
import { MapView, useMapApi } from '@/components/map/map-view';
import type { AlarmTrackPoint } from '../api/alarms';

interface Point {
  lat: number;
  lng: number;
}

function AlarmLayer({ point, track }: { point?: Point | null; track: readonly AlarmTrackPoint[] }) {
  const api = useMapApi();
  useEffect(() => {
    if (!api) return;
    const group = L.layerGroup().addTo(api.map);
    const line = track.flatMap((p) => (p.point ? [api.toMap(p.point)] : []));
    if (line.length > 1) L.polyline(line, { color: '#1764ff', weight: 4, opacity: 0.8, interactive: false }).addTo(group);
    const at = point ? api.toMap(point) : line[0];
    if (at) L.circleMarker(at, { radius: 8, color: '#fff', weight: 3, fillColor: '#e5252a', fillOpacity: 1, interactive: false }).addTo(group);
    api.map.invalidateSize({ pan: false });
    if (line.length > 1) api.map.fitBounds(L.latLngBounds(line).pad(0.2), { maxZoom: 16 });
    else if (at) api.map.setView(at, 15);
    return () => {
      group.remove();
    };
  }, [api, point, track]);
  return null;
}

export function AlarmMap({ point, track }: { point?: Point | null; track: readonly AlarmTrackPoint[] }) {
  return (
    <MapView style={{ height: 260 }} center={point ?? undefined} zoom={point ? 15 : undefined} data-testid="alarm-map">
      <AlarmLayer point={point} track={track} />
    </MapView>
  );
}
