import { useEffect, useState } from 'react';
import { MOBILE_BREAKPOINT_PX } from '@/config/constants';

/** Mobile mode below 1024 px (console spec §2). */
export function useIsMobile(): boolean {
  const query = `(max-width: ${MOBILE_BREAKPOINT_PX - 1}px)`;
  const [mobile, setMobile] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const sync = () => setMobile(list.matches);
    list.addEventListener('change', sync);
    return () => list.removeEventListener('change', sync);
  }, [query]);
  return mobile;
}
