import { countBy, gridCluster } from './cluster';

const pt = (x: number, y: number, item: string) => ({ x, y, item });

describe('grid clustering', () => {
  it('joins points of one cell at their centroid and keeps lone points alone', () => {
    const clusters = gridCluster([pt(10, 10, 'a'), pt(30, 50, 'b'), pt(130, 10, 'c')], 60);
    expect(clusters).toHaveLength(2);
    const joined = clusters.find((c) => c.items.length === 2);
    expect(joined).toEqual({ x: 20, y: 30, items: ['a', 'b'] });
    expect(clusters.find((c) => c.items.length === 1)).toEqual({ x: 130, y: 10, items: ['c'] });
  });

  it('lays cells on the world grid, so neighbours across a cell line stay apart', () => {
    expect(gridCluster([pt(59, 0, 'a'), pt(61, 0, 'b')], 60)).toHaveLength(2);
  });

  it('keeps every point exactly once, for thousands of points', () => {
    const points = Array.from({ length: 20000 }, (_, i) => pt((i * 7919) % 5000, (i * 104729) % 3000, String(i)));
    const clusters = gridCluster(points, 64);
    expect(clusters.reduce((n, c) => n + c.items.length, 0)).toBe(20000);
    expect(clusters.length).toBeLessThanOrEqual(Math.ceil(5000 / 64) * Math.ceil(3000 / 64));
    expect(new Set(clusters.flatMap((c) => c.items)).size).toBe(20000);
  });

  it('clusters nothing with no cell size', () => {
    expect(gridCluster([pt(1, 1, 'a'), pt(1, 1, 'b')], 0)).toHaveLength(2);
  });

  it('counts a cluster by kind', () => {
    expect(countBy(['driving', 'parked', 'driving'], (s) => s)).toEqual({ driving: 2, parked: 1 });
  });
});
