import dayjs from 'dayjs';
import type { Geofence } from '../api/geofences';
import { fenceBody, fenceFormValues, geometryProblems, newFence } from './fence-form';
import { corridorSegments, distanceM, eastOf } from './fence-geometry';

const fence: Geofence = {
  id: 'f1',
  name: '深圳仓',
  shape: 'polygon',
  purpose: 'area',
  center: null,
  radiusM: null,
  points: [
    { lat: 22.5, lng: 114 },
    { lat: 22.6, lng: 114 },
    { lat: 22.6, lng: 114.1 },
  ],
  corridorWidthM: null,
  speedLimitKmh: 60,
  activeWindows: [{ weekdays: [1, 2, 3, 4, 5], start: '08:00', end: '18:30' }],
  dwellSeconds: 120,
  maxStayMinutes: 0,
  alarmOnEnter: true,
  alarmOnExit: false,
  vehicleIds: ['v1'],
  orgId: 'o1',
  orgName: '华南',
  enabled: true,
  insideCount: 3,
  createdAt: '',
  updatedAt: '',
};

describe('fence form', () => {
  it('names what is missing from each shape', () => {
    expect(geometryProblems({ shape: 'circle', points: [], radiusM: 500 })).toEqual(['centerRequired']);
    expect(geometryProblems({ shape: 'circle', center: { lat: 1, lng: 1 }, points: [], radiusM: 20 })).toEqual(['radiusRange']);
    expect(geometryProblems({ shape: 'polygon', points: fence.points.slice(0, 2) })).toEqual(['polygonPoints']);
    expect(geometryProblems({ shape: 'corridor', points: fence.points.slice(0, 1), corridorWidthM: 5 })).toEqual(['corridorPoints', 'widthRange']);
    expect(geometryProblems({ shape: 'polygon', points: fence.points })).toEqual([]);
  });

  it('round-trips a fence through the form, windows as HH:mm', () => {
    const { values, geometry } = fenceFormValues(fence);
    expect(values.windows[0].range?.[0]?.format('HH:mm')).toBe('08:00');
    const body = fenceBody(values, geometry);
    expect(body).toMatchObject({ name: '深圳仓', shape: 'polygon', center: null, radiusM: null, corridorWidthM: null, speedLimitKmh: 60, dwellSeconds: 120, alarmOnExit: false, vehicleIds: ['v1'], orgId: 'o1' });
    expect(body.activeWindows).toEqual([{ weekdays: [1, 2, 3, 4, 5], start: '08:00', end: '18:30' }]);
    expect(body.points).toEqual(fence.points);
  });

  it('sends a max stay in minutes and no limit as 0', () => {
    const { values, geometry } = fenceFormValues({ ...fence, maxStayMinutes: 45 });
    expect(values.maxStayMinutes).toBe(45);
    expect(fenceBody(values, geometry).maxStayMinutes).toBe(45);
    expect(fenceFormValues(fence).values.maxStayMinutes).toBeNull();
    expect(fenceBody({ ...values, maxStayMinutes: null }, geometry).maxStayMinutes).toBe(0);
  });

  it("sends only the shape's own geometry", () => {
    const { values } = newFence('signIn');
    const circle = fenceBody({ ...values, name: ' 签到点 ', orgId: 'o1' }, { shape: 'circle', center: { lat: 22.123456789, lng: 114 }, radiusM: 300, points: fence.points, corridorWidthM: 50 });
    expect(circle).toMatchObject({ name: '签到点', purpose: 'signIn', shape: 'circle', center: { lat: 22.1234568, lng: 114 }, radiusM: 300, points: [], corridorWidthM: null });
    const corridor = fenceBody({ ...values, windows: [{ weekdays: [7, 6], range: [dayjs().hour(22).minute(0), dayjs().hour(6).minute(0)] }] }, { shape: 'corridor', points: fence.points, corridorWidthM: 80, radiusM: 500 });
    expect(corridor).toMatchObject({ center: null, radiusM: null, corridorWidthM: 80, activeWindows: [{ weekdays: [6, 7], start: '22:00', end: '06:00' }] });
  });
});

describe('fence geometry', () => {
  it('measures distances on the earth', () => {
    // One degree of latitude ≈ 111.2 km.
    expect(distanceM({ lat: 30, lng: 114 }, { lat: 31, lng: 114 })).toBeGreaterThan(111_000);
    expect(distanceM({ lat: 30, lng: 114 }, { lat: 31, lng: 114 })).toBeLessThan(111_400);
    expect(distanceM({ lat: 22.5, lng: 114 }, eastOf({ lat: 22.5, lng: 114 }, 500))).toBeCloseTo(500, 0);
  });

  it('outlines a corridor as one rectangle per segment, half the width each side', () => {
    const [rect] = corridorSegments([{ lat: 30, lng: 114 }, { lat: 30, lng: 114.01 }], 200);
    expect(rect).toHaveLength(4);
    expect(distanceM(rect[0], rect[3])).toBeCloseTo(200, 0);
    expect(corridorSegments([{ lat: 30, lng: 114 }], 200)).toEqual([]);
  });
});
