/**
 * Thousands of markers on one canvas above the map, grid-clustered below
 * `clusterBelowZoom` (cluster.ts). Leaflet's own markers are DOM elements, which
 * stop being smooth after a few hundred; one canvas redrawn per frame is cheap.
 * Clusters show their count and the colour the caller picks (e.g. red when any
 * vehicle in it alarms); a click on a cluster zooms into it, on a marker selects it.
 */
import * as L from 'leaflet';
import { useEffect, useRef } from 'react';
import { gridCluster, type Cluster } from './cluster';
import type { LatLng } from './gcj02';
import { useMapApi } from './map-view';

export interface ClusteredMarkersProps<T> {
  items: readonly T[];
  keyOf: (item: T) => string;
  position: (item: T) => LatLng;
  color: (item: T) => string;
  clusterColor: (items: readonly T[]) => string;
  /** A small red count on a cluster's edge (e.g. how many of its vehicles alarm); none when 0. */
  clusterBadge?: (items: readonly T[]) => number;
  /** Degrees clockwise from north: an arrow on the marker. */
  heading?: (item: T) => number | undefined;
  /** Text beside a marker when zoomed in (e.g. the plate). */
  label?: (item: T) => string;
  selectedKey?: string;
  onSelect?: (item: T) => void;
  /** Markers are clustered at zooms below this (default 15). */
  clusterBelowZoom?: number;
  /** Cell size of the grid (default 64 px). */
  cellPx?: number;
}

interface Drawn<T> {
  x: number;
  y: number;
  r: number;
  cluster: Cluster<T>;
}

const MARKER_RADIUS = 7;
const LABEL_ZOOM = 12;

function clusterRadius(count: number): number {
  return Math.min(30, 13 + Math.log10(count) * 6);
}

export function ClusteredMarkers<T>(props: ClusteredMarkersProps<T>) {
  const api = useMapApi();
  // Latest props for the map's event handlers, without re-binding them on every render.
  const latest = useRef(props);
  latest.current = props;
  const state = useRef<{ canvas?: HTMLCanvasElement; clusters: { world: L.Point; cluster: Cluster<T> }[]; drawn: Drawn<T>[]; zoom: number }>({ clusters: [], drawn: [], zoom: -1 });
  const redraw = useRef<() => void>(() => undefined);
  const recluster = useRef<() => void>(() => undefined);

  useEffect(() => {
    if (!api) return;
    const { map } = api;
    const canvas = document.createElement('canvas');
    canvas.className = 'fd-map__markers';
    map.getContainer().appendChild(canvas);
    state.current.canvas = canvas;
    let zooming = false;

    recluster.current = () => {
      const { items, position, clusterBelowZoom = 15, cellPx = 64 } = latest.current;
      const zoom = map.getZoom();
      const points = items.map((item) => {
        const p = map.project(api.toMap(position(item)), zoom);
        return { x: p.x, y: p.y, item };
      });
      const clusters = gridCluster(points, zoom < clusterBelowZoom ? cellPx : 0);
      state.current.clusters = clusters.map((c) => ({ world: L.point(c.x, c.y), cluster: c }));
      state.current.zoom = zoom;
    };

    redraw.current = () => {
      const size = map.getSize();
      const ratio = window.devicePixelRatio || 1;
      if (canvas.width !== size.x * ratio || canvas.height !== size.y * ratio) {
        canvas.width = size.x * ratio;
        canvas.height = size.y * ratio;
        canvas.style.width = `${size.x}px`;
        canvas.style.height = `${size.y}px`;
      }
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, size.x, size.y);
      // Mid-zoom the projection is changing: nothing until zoomend draws again.
      if (zooming || state.current.zoom !== map.getZoom()) return;
      const { keyOf, color, clusterColor, clusterBadge, heading, label, selectedKey } = latest.current;
      // World pixels → container pixels for this frame.
      const origin = map.getPixelOrigin().add(map.containerPointToLayerPoint([0, 0]));
      const drawn: Drawn<T>[] = [];
      let selected: Drawn<T> | undefined;
      const showLabels = map.getZoom() >= LABEL_ZOOM;
      ctx.font = '12px sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (const { world, cluster } of state.current.clusters) {
        const x = world.x - origin.x;
        const y = world.y - origin.y;
        if (x < -40 || y < -40 || x > size.x + 40 || y > size.y + 40) continue;
        if (cluster.items.length > 1) {
          const r = clusterRadius(cluster.items.length);
          ctx.beginPath();
          ctx.arc(x, y, r + 4, 0, Math.PI * 2);
          ctx.fillStyle = `${clusterColor(cluster.items)}55`;
          ctx.fill();
          ctx.beginPath();
          ctx.arc(x, y, r, 0, Math.PI * 2);
          ctx.fillStyle = clusterColor(cluster.items);
          ctx.fill();
          ctx.fillStyle = '#fff';
          ctx.fillText(String(cluster.items.length), x, y);
          const badge = clusterBadge?.(cluster.items) ?? 0;
          if (badge > 0) drawBadge(ctx, x + r * 0.75, y - r * 0.75, badge);
          drawn.push({ x, y, r: r + 4, cluster });
          continue;
        }
        const item = cluster.items[0];
        const entry = { x, y, r: MARKER_RADIUS + 3, cluster };
        drawn.push(entry);
        if (selectedKey !== undefined && keyOf(item) === selectedKey) {
          selected = entry;
          continue; // drawn last, on top
        }
        drawMarker(ctx, x, y, color(item), heading?.(item), false);
        if (showLabels && label) drawLabel(ctx, x, y, label(item));
      }
      if (selected) {
        const item = selected.cluster.items[0];
        drawMarker(ctx, selected.x, selected.y, color(item), heading?.(item), true);
        if (label) drawLabel(ctx, selected.x, selected.y, label(item));
      }
      state.current.drawn = drawn;
    };

    const hit = (p: L.Point) => {
      const drawn = state.current.drawn;
      for (let i = drawn.length - 1; i >= 0; i--) {
        const d = drawn[i];
        if ((d.x - p.x) ** 2 + (d.y - p.y) ** 2 <= d.r * d.r) return d;
      }
      return undefined;
    };
    const onClick = (e: L.LeafletMouseEvent) => {
      const d = hit(e.containerPoint);
      if (!d) return;
      if (d.cluster.items.length > 1) {
        const bounds = L.latLngBounds(d.cluster.items.map((item) => api.toMap(latest.current.position(item))));
        map.fitBounds(bounds.pad(0.2), { maxZoom: Math.max(map.getZoom() + 2, latest.current.clusterBelowZoom ?? 15) });
      } else latest.current.onSelect?.(d.cluster.items[0]);
    };
    const onMove = (e: L.LeafletMouseEvent) => {
      map.getContainer().style.cursor = hit(e.containerPoint) ? 'pointer' : '';
    };
    const onZoomStart = () => {
      zooming = true;
      redraw.current();
    };
    const onZoomEnd = () => {
      zooming = false;
      recluster.current();
      redraw.current();
    };
    const onFrame = () => redraw.current();
    map.on('click', onClick);
    map.on('mousemove', onMove);
    map.on('zoomend viewreset', onZoomEnd);
    map.on('zoomstart', onZoomStart);
    map.on('move resize', onFrame);
    onZoomEnd();
    return () => {
      map.off('click', onClick);
      map.off('mousemove', onMove);
      map.off('zoomend viewreset', onZoomEnd);
      map.off('zoomstart', onZoomStart);
      map.off('move resize', onFrame);
      canvas.remove();
    };
  }, [api]);

  // New items (a stream update) or another selection: cluster again and draw.
  const { items, selectedKey } = props;
  useEffect(() => {
    recluster.current();
    redraw.current();
  }, [items, selectedKey]);
  return null;
}

function drawMarker(ctx: CanvasRenderingContext2D, x: number, y: number, color: string, heading: number | undefined, selected: boolean) {
  const r = selected ? MARKER_RADIUS + 2 : MARKER_RADIUS;
  if (heading !== undefined) {
    // A small wedge pointing where the vehicle heads.
    const a = ((heading - 90) * Math.PI) / 180;
    ctx.beginPath();
    ctx.moveTo(x + Math.cos(a) * (r + 6), y + Math.sin(a) * (r + 6));
    ctx.lineTo(x + Math.cos(a + 2.4) * r, y + Math.sin(a + 2.4) * r);
    ctx.lineTo(x + Math.cos(a - 2.4) * r, y + Math.sin(a - 2.4) * r);
    ctx.closePath();
    ctx.fillStyle = color;
    ctx.fill();
  }
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = color;
  ctx.fill();
  ctx.lineWidth = selected ? 3 : 2;
  ctx.strokeStyle = selected ? '#1f2533' : '#fff';
  ctx.stroke();
}

function drawBadge(ctx: CanvasRenderingContext2D, x: number, y: number, count: number) {
  const text = count > 99 ? '99+' : String(count);
  ctx.font = '10px sans-serif';
  const w = Math.max(16, ctx.measureText(text).width + 8);
  ctx.beginPath();
  ctx.roundRect(x - w / 2, y - 8, w, 16, 8);
  ctx.fillStyle = '#e5252a';
  ctx.fill();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = '#fff';
  ctx.stroke();
  ctx.fillStyle = '#fff';
  ctx.fillText(text, x, y);
  ctx.font = '12px sans-serif';
}

function drawLabel(ctx: CanvasRenderingContext2D, x: number, y: number, text: string) {
  if (!text) return;
  const w = ctx.measureText(text).width + 8;
  ctx.fillStyle = 'rgba(255,255,255,0.9)';
  ctx.fillRect(x - w / 2, y + MARKER_RADIUS + 4, w, 16);
  ctx.fillStyle = '#1f2533';
  ctx.fillText(text, x, y + MARKER_RADIUS + 12);
}
