/** Spec §9's click debounce: a second click within the window is dropped. */
import { useCallback, useRef } from 'react';
import { CLICK_DEBOUNCE_MS } from '@/config/constants';

/**
 * Wraps a click handler so clicks closer than `windowMs` to the last accepted one
 * do nothing. The check is synchronous (a ref, not state), so a double click that
 * lands before React re-renders the disabled button still fires once.
 */
export function useClickDebounce<A extends unknown[]>(handler: (...args: A) => void, windowMs = CLICK_DEBOUNCE_MS): (...args: A) => void {
  const last = useRef(Number.NEGATIVE_INFINITY);
  const latest = useRef(handler);
  latest.current = handler;
  return useCallback(
    (...args: A) => {
      const now = Date.now();
      if (now - last.current < windowMs) return;
      last.current = now;
      latest.current(...args);
    },
    [windowMs],
  );
}
