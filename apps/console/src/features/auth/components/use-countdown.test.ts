import { act, renderHook } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { secondsLeft, useCountdown } from './use-countdown';

afterEach(() => vi.useRealTimers());

describe('SMS resend countdown (console spec §4)', () => {
  it('rounds the time left up to whole seconds and never goes below 0', () => {
    expect(secondsLeft(60_000, 0)).toBe(60);
    expect(secondsLeft(60_000, 1)).toBe(60);
    expect(secondsLeft(60_000, 59_001)).toBe(1);
    expect(secondsLeft(60_000, 60_000)).toBe(0);
    expect(secondsLeft(60_000, 90_000)).toBe(0);
  });

  it('is idle until started, then counts 60 down to 0 a second at a time', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useCountdown());
    expect(result.current).toMatchObject({ remaining: 0, running: false });
    act(() => result.current.start(60));
    expect(result.current).toMatchObject({ remaining: 60, running: true });
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(59);
    act(() => vi.advanceTimersByTime(58_000));
    expect(result.current.remaining).toBe(1);
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current).toMatchObject({ remaining: 0, running: false });
    act(() => vi.advanceTimersByTime(5000));
    expect(result.current.remaining).toBe(0);
  });

  it('runs from the wait a limit gave, and a new start replaces the old one', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start(42));
    expect(result.current.remaining).toBe(42);
    act(() => vi.advanceTimersByTime(2000));
    act(() => result.current.start(10));
    expect(result.current.remaining).toBe(10);
    act(() => vi.advanceTimersByTime(10_000));
    expect(result.current.running).toBe(false);
  });

  it('ends on time when the timer was throttled (background tab)', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start(60));
    // The clock moves 45 s while only one tick runs.
    vi.setSystemTime(Date.now() + 45_000);
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(14);
  });

  it('ignores a start of 0 seconds', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start(0));
    expect(result.current.running).toBe(false);
  });
});
