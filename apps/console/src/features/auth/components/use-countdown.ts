import { useCallback, useEffect, useState } from 'react';

/** Whole seconds left until `endsAt` (never negative). */
export function secondsLeft(endsAt: number, now: number): number {
  return Math.max(0, Math.ceil((endsAt - now) / 1000));
}

/**
 * A countdown in whole seconds: `start(n)` runs it from n down to 0 (idle). It
 * counts against the clock, not ticks, so a throttled background tab still
 * ends on time.
 */
export function useCountdown() {
  const [endsAt, setEndsAt] = useState(0);
  const [remaining, setRemaining] = useState(0);
  useEffect(() => {
    if (endsAt === 0) return;
    const tick = () => {
      const left = secondsLeft(endsAt, Date.now());
      setRemaining(left);
      if (left === 0) setEndsAt(0);
    };
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [endsAt]);
  const start = useCallback((seconds: number) => {
    if (seconds > 0) setEndsAt(Date.now() + seconds * 1000);
  }, []);
  return { remaining, running: remaining > 0, start };
}
