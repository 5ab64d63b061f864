import { decodeBasemap, type EncodedBasemap } from './basemap';
import text from './china-provinces.json?raw';

const shipped = JSON.parse(text) as EncodedBasemap;

describe('offline basemap', () => {
  it('decodes a first absolute pair then deltas, in 1/scale degrees', () => {
    const [p] = decodeBasemap({ scale: 100, provinces: [{ name: 'x', rings: [[11600, 3990, 10, -5, -10, 5]] }] });
    expect(p.rings[0]).toEqual([
      [116, 39.9],
      [116.1, 39.85],
      [116, 39.9],
    ]);
  });

  it('ships every province of China inside its bounding box', () => {
    const provinces = decodeBasemap(shipped);
    expect(provinces.length).toBe(34);
    expect(provinces.map((p) => p.name)).toEqual(expect.arrayContaining(['北京', '广东', '新疆', '台湾', '香港', '澳门']));
    for (const p of provinces) {
      for (const ring of p.rings) {
        expect(ring.length).toBeGreaterThanOrEqual(3);
        for (const [lng, lat] of ring) {
          expect(lng).toBeGreaterThan(73);
          expect(lng).toBeLessThan(136);
          expect(lat).toBeGreaterThan(3);
          expect(lat).toBeLessThan(54);
        }
      }
    }
  });

  it('puts Beijing around Beijing', () => {
    const beijing = decodeBasemap(shipped).find((p) => p.name === '北京');
    const points = beijing?.rings.flat() ?? [];
    const lng = points.reduce((s, [x]) => s + x, 0) / points.length;
    const lat = points.reduce((s, [, y]) => s + y, 0) / points.length;
    expect(lng).toBeGreaterThan(115.5);
    expect(lng).toBeLessThan(117.5);
    expect(lat).toBeGreaterThan(39.4);
    expect(lat).toBeLessThan(41);
  });
});
