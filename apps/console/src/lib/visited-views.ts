/**
 * The tab bar's visited views (console spec §2): pure updates plus a small store kept in
 * sessionStorage so tabs survive reloads.
 */
import { useSyncExternalStore } from 'react';
import { NO_TAB_PATHS, routeTree } from '@/config/routes';
import { flatten, resolveTree } from './access';
import { VISITED_VIEWS_KEY } from './session';

export interface VisitedView {
  /** pathname + search: the tab's identity. */
  path: string;
  /** i18n key of the title; missing shows 'no-name'. */
  title?: string;
}

export function opensTab(pathname: string): boolean {
  return !NO_TAB_PATHS.includes(pathname) && !pathname.startsWith('/redirect/') && pathname !== '/401' && pathname !== '/404';
}

const pathnameOf = (path: string) => path.split('?')[0];
/** Hidden pages (details, forms) get a tab per address; the others one tab whatever their query. */
const HIDDEN_PATHS = new Set(flatten(resolveTree(routeTree)).filter((r) => r.meta.hidden).map((r) => r.fullPath));

/**
 * What one tab is: a hidden page's whole address, a menu page's pathname (its
 * query, a list's filters, changes within the tab). The tab bar and the kept-alive
 * pages use it alike, so a list's search updates its page instead of mounting a new one.
 */
export const viewKey = (path: string): string => {
  const pathname = pathnameOf(path);
  return HIDDEN_PATHS.has(pathname) ? path : pathname;
};

/**
 * Adds the view, or updates its tab. A menu page keeps one tab while its query
 * changes (a list's filters live in the URL): the tab takes the newest address.
 */
export function addView(views: VisitedView[], view: VisitedView): VisitedView[] {
  const key = viewKey(view.path);
  const i = views.findIndex((v) => viewKey(v.path) === key);
  if (i === -1) return [...views, view];
  if (views[i].path === view.path && views[i].title === view.title) return views;
  return views.map((v, j) => (j === i ? view : v));
}

export function closeView(views: VisitedView[], path: string): VisitedView[] {
  return views.filter((v) => v.path !== path);
}

export function closeOthers(views: VisitedView[], path: string): VisitedView[] {
  return views.filter((v) => v.path === path);
}

/** After closing the active tab: the last remaining tab, else home. */
export function nextPathAfterClose(views: VisitedView[], fallback: string): string {
  return views.length ? views[views.length - 1].path : fallback;
}

function load(): VisitedView[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(VISITED_VIEWS_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is VisitedView => typeof v?.path === 'string') : [];
  } catch {
    return [];
  }
}

let views: VisitedView[] = load();
const listeners = new Set<() => void>();

export function setVisitedViews(update: (current: VisitedView[]) => VisitedView[]): void {
  const next = update(views);
  if (next === views) return;
  views = next;
  sessionStorage.setItem(VISITED_VIEWS_KEY, JSON.stringify(views));
  listeners.forEach((l) => l());
}

export function useVisitedViews(): VisitedView[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => views,
  );
}
