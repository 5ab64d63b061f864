import { tileSourceFrom } from './tile-source';

describe('tile source configuration', () => {
  it('has none without a URL template, or with one missing {x} {y} {z}', () => {
    expect(tileSourceFrom({})).toBeUndefined();
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: '  ' })).toBeUndefined();
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: 'https://tiles.example.com/{z}/{x}.png' })).toBeUndefined();
  });

  it('treats Chinese providers as GCJ-02 unless told otherwise', () => {
    const amap = 'https://webrd0{s}.is.autonavi.com/appmaptile?style=8&x={x}&y={y}&z={z}';
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: amap, VITE_MAP_TILE_SUBDOMAINS: '1234' })).toMatchObject({ datum: 'gcj02', subdomains: '1234', maxZoom: 18 });
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: amap, VITE_MAP_TILE_DATUM: 'wgs84' })?.datum).toBe('wgs84');
  });

  it('treats other sources as WGS-84, and takes a GCJ-02 flag and max zoom from the env', () => {
    const own = 'https://tiles.example.com/{z}/{x}/{y}.png';
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: own })).toMatchObject({ datum: 'wgs84', subdomains: 'abc' });
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: own, VITE_MAP_TILE_DATUM: 'GCJ02', VITE_MAP_TILE_MAX_ZOOM: '16' })).toMatchObject({ datum: 'gcj02', maxZoom: 16 });
    expect(tileSourceFrom({ VITE_MAP_TILE_URL: own, VITE_MAP_TILE_MAX_ZOOM: '99' })?.maxZoom).toBe(18);
  });
});
