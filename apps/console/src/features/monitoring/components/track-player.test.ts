import { advance, indexAtTime, initialPlayer, interpolate, rangeProblem, seek, togglePlay, type TrackPoint } from './track-player';

const pts: TrackPoint[] = [0, 1, 2, 3].map((i) => ({ t: `2026-05-01T10:0${i}:00Z`, lat: 30 + i * 0.01, lng: 114, speedKmh: i * 10, heading: 0 }));

describe('track player', () => {
  it('moves five fixes a second at 1× and eight times that at 8×, stopping at the end', () => {
    let s = togglePlay(initialPlayer(), pts.length);
    expect(s.playing).toBe(true);
    s = advance(s, 200, pts.length);
    expect(s.position).toBeCloseTo(1);
    s = advance({ ...s, speed: 8 }, 1000, pts.length);
    expect(s).toMatchObject({ position: 3, playing: false });
  });

  it('pauses, and plays again from the start once at the end', () => {
    const playing = { position: 1.5, playing: true, speed: 2 as const };
    expect(togglePlay(playing, 4)).toMatchObject({ playing: false, position: 1.5 });
    expect(togglePlay({ ...playing, playing: false, position: 3 }, 4)).toMatchObject({ playing: true, position: 0 });
    expect(togglePlay(initialPlayer(), 1).playing).toBe(false);
  });

  it('scrubs within the track', () => {
    expect(seek(initialPlayer(), 7, 4).position).toBe(3);
    expect(seek(initialPlayer(), -2, 4).position).toBe(0);
  });

  it('places the vehicle between fixes', () => {
    expect(interpolate(pts, 1.5)?.lat).toBeCloseTo(30.015);
    expect(interpolate(pts, 3)?.lat).toBeCloseTo(30.03);
    expect(interpolate([], 0)).toBeUndefined();
  });

  it('finds the fix of a stop or speeding time', () => {
    expect(indexAtTime(pts, '2026-05-01T10:02:30Z')).toBe(2);
    expect(indexAtTime(pts, '2026-05-01T09:00:00Z')).toBe(0);
    expect(indexAtTime(pts, '2026-05-02T00:00:00Z')).toBe(3);
  });

  it('accepts ranges of up to seven days, start before end', () => {
    const d = (s: string) => new Date(s);
    expect(rangeProblem(undefined, d('2026-05-02'))).toBe('rangeRequired');
    expect(rangeProblem(d('2026-05-02'), d('2026-05-01'))).toBe('rangeOrder');
    expect(rangeProblem(d('2026-05-01T00:00:00Z'), d('2026-05-08T00:00:01Z'))).toBe('rangeTooLong');
    expect(rangeProblem(d('2026-05-01T00:00:00Z'), d('2026-05-08T00:00:00Z'))).toBeUndefined();
  });
});
