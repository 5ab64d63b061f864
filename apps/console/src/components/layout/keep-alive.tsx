import type { ReactNode } from 'react';
import { useLocation, useOutlet } from 'react-router';

/** Cached page elements by tab path; dropping one makes its next visit a fresh mount. */
const cache = new Map<string, ReactNode>();

export function dropCached(path: string): void {
  cache.delete(path);
}

/**
 * Keeps the pages of open tabs mounted (hidden) so returning to a tab keeps its
 * state; routes flagged noCache are never kept (console spec §2).
 */
export function KeepAliveOutlet({ cacheable, openPaths }: { cacheable: (path: string) => boolean; openPaths: string[] }) {
  const outlet = useOutlet();
  const location = useLocation();
  const key = location.pathname + location.search;
  const keep = cacheable(key);
  if (keep) cache.set(key, outlet);
  for (const path of [...cache.keys()]) {
    if (path !== key && !openPaths.includes(path)) cache.delete(path);
  }
  return (
    <>
      {[...cache.keys()].map((path) => (
        <div key={path} className="fd-view" hidden={path !== key}>
          {cache.get(path)}
        </div>
      ))}
      {!keep && (
        <div key={`live:${key}`} className="fd-view">
          {outlet}
        </div>
      )}
    </>
  );
}
