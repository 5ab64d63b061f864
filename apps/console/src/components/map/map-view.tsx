/**
 * The console's map. Leaflet (BSD-2, ≈ 40 KB gzip) rather than MapLibre (≈ 220 KB
 * and WebGL) or a hand-written map: raster tiles, pan/zoom with touch and inertia,
 * and canvas vectors are all we need, and it lives only in the monitoring chunk,
 * never in /login or /dashboard. Under everything lies the shipped province
 * basemap (works with no internet); a configured tile source draws above it
 * (a failed tile is transparent, so offline the basemap shows through).
 *
 * Everything given to the map is WGS-84; `toMap` converts into the tile
 * source's datum (GCJ-02 for Chinese providers) and `fromMap` back, so a click
 * or a drawn shape is WGS-84 again before it leaves the map.
 */
import * as L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import './map.css';
import { createContext, useContext, useEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { loadBasemap } from './basemap';
import { fromDatum, toDatum, type Datum, type LatLng } from './gcj02';
import { configuredTileSource } from './tile-source';

export interface MapApi {
  map: L.Map;
  datum: Datum;
  /** A WGS-84 position where the map draws it. */
  toMap: (p: LatLng) => L.LatLng;
  /** A map position (a click) as WGS-84. */
  fromMap: (p: L.LatLng) => LatLng;
}

const MapContext = createContext<MapApi | null>(null);

/** The map of the enclosing `MapView` (null before it is ready). */
export function useMapApi(): MapApi | null {
  return useContext(MapContext);
}

/** Mainland China in one view. */
export const CHINA_VIEW = { center: { lat: 35.5, lng: 104.5 }, zoom: 4 };

export interface MapViewProps {
  /** Overlays (legend, cards) and layer components that draw through `useMapApi`. */
  children?: ReactNode;
  style?: CSSProperties;
  className?: string;
  center?: LatLng;
  zoom?: number;
  'data-testid'?: string;
}

export function MapView({ children, style, className, center = CHINA_VIEW.center, zoom = CHINA_VIEW.zoom, 'data-testid': testId }: MapViewProps) {
  const element = useRef<HTMLDivElement>(null);
  const [api, setApi] = useState<MapApi | null>(null);
  // The first view only; later changes of the props do not move the map (pages move it themselves).
  const initial = useRef({ center, zoom });

  useEffect(() => {
    const container = element.current;
    if (!container) return;
    const source = configuredTileSource();
    const datum: Datum = source?.datum ?? 'wgs84';
    const toMap = (p: LatLng) => {
      const d = toDatum(p, datum);
      return L.latLng(d.lat, d.lng);
    };
    const map = L.map(container, { preferCanvas: true, minZoom: 3, maxZoom: source?.maxZoom ?? 18, attributionControl: !!source?.attribution, worldCopyJump: false });
    map.setView(toMap(initial.current.center), initial.current.zoom);
    // The view (centre in the map's datum, zoom) on the element: browser tests place their clicks by it.
    const showView = () => {
      const c = map.getCenter();
      container.dataset.view = `${c.lat},${c.lng},${map.getZoom()}`;
    };
    showView();
    map.on('moveend zoomend resize', showView);

    const basemapPane = map.createPane('fd-basemap');
    basemapPane.style.zIndex = '150'; // below the tiles (200): tiles cover it once they load
    basemapPane.style.pointerEvents = 'none';
    let removed = false;
    void loadBasemap().then((provinces) => {
      if (removed) return;
      const renderer = L.canvas({ pane: 'fd-basemap', padding: 0.5 });
      for (const province of provinces) {
        const rings = province.rings.map((ring) => ring.map(([lng, lat]) => toMap({ lat, lng })));
        L.polygon(rings, { renderer, pane: 'fd-basemap', interactive: false, color: '#9aa8bc', weight: 1, fillColor: '#f7f8fa', fillOpacity: 1 }).addTo(map);
      }
    });
    if (source) L.tileLayer(source.url, { subdomains: source.subdomains, maxZoom: source.maxZoom, attribution: source.attribution }).addTo(map);

    // The box changes size with the layout (sidebar, tabs, window): Leaflet must be told.
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => map.invalidateSize({ pan: false }));
    observer?.observe(container);

    setApi({ map, datum, toMap, fromMap: (p) => fromDatum({ lat: p.lat, lng: p.lng }, datum) });
    return () => {
      removed = true;
      observer?.disconnect();
      setApi(null);
      map.remove();
    };
  }, []);

  return (
    <div className={['fd-map', className].filter(Boolean).join(' ')} style={style} data-testid={testId}>
      <div ref={element} className="fd-map__canvas" />
      {api && <MapContext.Provider value={api}>{children}</MapContext.Provider>}
    </div>
  );
}

/** Where an overlay (legend, card, toolbar) sits on the map. */
export function MapOverlay({ position, children, style }: { position: 'topleft' | 'topright' | 'bottomleft' | 'bottomright'; children: ReactNode; style?: CSSProperties }) {
  const [v, h] = position.startsWith('top') ? ['top', position.slice(3)] : ['bottom', position.slice(6)];
  // Clear of Leaflet's zoom control (top left).
  const offset = position === 'topleft' ? { top: 12, left: 56 } : { [v]: 12, [h]: 12 };
  return (
    <div className="fd-map__overlay" style={{ ...offset, ...style }}>
      {children}
    </div>
  );
}
