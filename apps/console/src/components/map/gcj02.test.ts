import { fromDatum, gcj02ToWgs84, outOfChina, toDatum, wgs84ToGcj02 } from './gcj02';

describe('WGS-84 → GCJ-02', () => {
  // Reference values published with independent implementations of the same formula.
  it('moves central Beijing by the published offset', () => {
    const gcj = wgs84ToGcj02({ lng: 116.404, lat: 39.915 });
    expect(gcj.lng).toBeCloseTo(116.41024449916938, 9);
    expect(gcj.lat).toBeCloseTo(39.91640428150164, 9);
  });

  it('agrees within 10 cm with another implementation near Shanghai', () => {
    const gcj = wgs84ToGcj02({ lng: 121.0917077, lat: 30.6107779 });
    expect(gcj.lng).toBeCloseTo(121.09626935575027, 6);
    expect(gcj.lat).toBeCloseTo(30.608604331756705, 6);
  });

  it('leaves points outside China where they are', () => {
    expect(outOfChina(48.8566, 2.3522)).toBe(true);
    expect(wgs84ToGcj02({ lat: 45, lng: 183 })).toEqual({ lat: 45, lng: 183 });
    expect(wgs84ToGcj02({ lat: 35.68, lng: 139.76 })).toEqual({ lat: 35.68, lng: 139.76 });
  });
});

describe('GCJ-02 → WGS-84', () => {
  it('matches the published inverse of (123, 45)', () => {
    const wgs = gcj02ToWgs84({ lng: 123, lat: 45 });
    expect(wgs.lng).toBeCloseTo(122.99395597, 6);
    expect(wgs.lat).toBeCloseTo(44.99804071, 6);
  });

  it('round-trips to well under a centimetre across China', () => {
    for (const p of [
      { lat: 22.543, lng: 114.057 },
      { lat: 43.825, lng: 87.616 },
      { lat: 45.803, lng: 126.535 },
      { lat: 18.252, lng: 109.512 },
    ]) {
      const back = gcj02ToWgs84(wgs84ToGcj02(p));
      expect(Math.abs(back.lat - p.lat)).toBeLessThan(1e-7);
      expect(Math.abs(back.lng - p.lng)).toBeLessThan(1e-7);
    }
  });

  it('is the identity for a WGS-84 map', () => {
    const p = { lat: 31.2, lng: 121.5 };
    expect(toDatum(p, 'wgs84')).toBe(p);
    expect(fromDatum(p, 'wgs84')).toBe(p);
    expect(fromDatum(toDatum(p, 'gcj02'), 'gcj02').lat).toBeCloseTo(31.2, 7);
  });
});
