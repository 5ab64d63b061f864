import type { ReactNode } from 'react';
import { useLocation, useOutlet } from 'react-router';
import { viewKey } from '@/lib/visited-views';

/** Cached page elements by tab (`viewKey`); dropping one makes its next visit a fresh mount. */
const cache = new Map<string, ReactNode>();

export function dropCached(path: string): void {
  cache.delete(viewKey(path));
}

/**
 * Keeps the pages of open tabs mounted (hidden) so returning to a tab keeps its
 * state; routes flagged noCache are never kept (console spec §2). A page is kept
 * by its tab, so a change of its query (a list's search) updates the mounted page:
 * the filter bar stays as the user left it (expanded, say) and nothing mounts twice.
 */
export function KeepAliveOutlet({ cacheable, openPaths }: { cacheable: (path: string) => boolean; openPaths: string[] }) {
  const outlet = useOutlet();
  const location = useLocation();
  const path = location.pathname + location.search;
  const key = viewKey(path);
  const keep = cacheable(path);
  if (keep) cache.set(key, outlet);
  const open = new Set(openPaths.map(viewKey));
  for (const kept of [...cache.keys()]) {
    if (kept !== key && !open.has(kept)) cache.delete(kept);
  }
  return (
    <>
      {[...cache.keys()].map((kept) => (
        <div key={kept} className="fd-view" hidden={kept !== key}>
          {cache.get(kept)}
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
