import type { LatestPosition } from '../api/positions';
import { applyPosition, countStatuses, effectiveStatus, searchPlates } from './live-positions';
import { clusterStatus } from './status';

const NOW = Date.parse('2026-05-01T10:00:00Z');
const fix = (over: Partial<LatestPosition> = {}): LatestPosition => ({
  vehicleId: 'v1',
  plateNumber: '粤B12345',
  orgName: '华南',
  driverName: '张三',
  lat: 22.5,
  lng: 114,
  speedKmh: 40,
  heading: 90,
  altitudeM: 10,
  soc: 80,
  temperatures: [],
  mileageKm: 1000,
  fixTime: '2026-05-01T09:59:30Z',
  status: 'driving',
  alarmBits: 0,
  ...over,
});

describe('live positions', () => {
  it('shows a vehicle offline once its fix is older than ten minutes', () => {
    expect(effectiveStatus(fix(), NOW)).toBe('driving');
    expect(effectiveStatus(fix({ fixTime: '2026-05-01T09:49:59Z' }), NOW)).toBe('offline');
    expect(effectiveStatus(fix({ fixTime: 'garbage' }), NOW)).toBe('offline');
  });

  it('keeps the newer fix when a late (backfilled) one arrives', () => {
    const store = new Map([['v1', fix({ fixTime: '2026-05-01T09:59:30Z', lat: 1 })]]);
    expect(applyPosition(store, fix({ fixTime: '2026-05-01T09:50:00Z', lat: 2 }), true)).toBe(false);
    expect(store.get('v1')?.lat).toBe(1);
    expect(applyPosition(store, fix({ fixTime: '2026-05-01T09:59:40Z', lat: 3 }), true)).toBe(true);
    expect(store.get('v1')?.lat).toBe(3);
  });

  it('adds unknown vehicles only when no organisation filter narrows the map', () => {
    const store = new Map<string, LatestPosition>();
    expect(applyPosition(store, fix({ vehicleId: 'v9' }), false)).toBe(false);
    expect(applyPosition(store, fix({ vehicleId: 'v9' }), true)).toBe(true);
    expect(applyPosition(store, { ...fix(), lat: NaN }, true)).toBe(false);
  });

  it('counts vehicles by the status they show now', () => {
    const list = [fix(), fix({ vehicleId: 'v2', status: 'alarm' }), fix({ vehicleId: 'v3', fixTime: '2026-05-01T08:00:00Z' })];
    expect(countStatuses(list, NOW)).toEqual({ total: 3, driving: 1, parked: 0, charging: 0, offline: 1, alarm: 1 });
  });

  it('finds plates by any part, the exact plate first', () => {
    const list = [fix({ plateNumber: '粤B123456' }), fix({ plateNumber: '粤B12345' }), fix({ plateNumber: '京A00001' })];
    expect(searchPlates(list, ' b12345').map((p) => p.plateNumber)).toEqual(['粤B12345', '粤B123456']);
    expect(searchPlates(list, '')).toEqual([]);
  });
});

describe('cluster colour', () => {
  it('is the most common status, alarms aside', () => {
    expect(clusterStatus(['alarm', 'parked', 'parked', 'driving'])).toBe('parked');
    expect(clusterStatus(['alarm', 'alarm'])).toBe('alarm');
  });
});
