import { useCallback, useEffect, useRef, useState } from 'react';

/** Grace period for moving the pointer from the trigger into its panel. */
export const CLOSE_GRACE_MS = 200;

/**
 * Hover-intent for the navbar (console spec §2): a popup opens after `delay` ms, or at once
 * when another one is already open; it closes shortly after the pointer leaves.
 */
export function useHoverMenu(delay: number) {
  const [open, setOpen] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const clear = () => clearTimeout(timer.current);
  useEffect(() => clear, []);

  const enter = useCallback(
    (key: string) => {
      clear();
      if (open !== null) setOpen(key);
      else timer.current = setTimeout(() => setOpen(key), delay);
    },
    [open, delay],
  );
  const leave = useCallback(() => {
    clear();
    timer.current = setTimeout(() => setOpen(null), CLOSE_GRACE_MS);
  }, []);
  const stay = useCallback(() => clear(), []);
  const close = useCallback(() => {
    clear();
    setOpen(null);
  }, []);
  return { open, enter, leave, stay, close };
}
