/**
 * Access computed by pure functions from the user's permissions and enterprise
 * flags (console spec §6): which routes may open, which show in the menu. Hiding is only
 * convenience; the gateway enforces the same permissions.
 */
import type { Domain, EnterpriseList, RouteMeta, RouteNode } from '@/config/routes';
import type { components } from './api/schema';

/** The enterprise's flags as `/me` sends them (the gateway's `EnterpriseFlagsBody`). */
export type EnterpriseFlags = components['schemas']['EnterpriseFlagsBody'];

export interface Principal {
  permissions: ReadonlySet<string>;
  flags: EnterpriseFlags;
}

/** Missing flags read as false / empty. */
export function normalizeFlags(raw?: Partial<Record<keyof EnterpriseFlags, unknown>> | null): EnterpriseFlags {
  const b = (k: keyof EnterpriseFlags) => raw?.[k] === true;
  return {
    isB2B: b('isB2B'),
    isWhiteList: b('isWhiteList'),
    isSF: b('isSF'),
    isMt: b('isMt'),
    inInsuranceBlacklist: b('inInsuranceBlacklist'),
    inChargeBlacklist: b('inChargeBlacklist'),
    inBehaviorAnalysisList: b('inBehaviorAnalysisList'),
    inLockCarList: b('inLockCarList'),
    inOrderCenterList: b('inOrderCenterList'),
    isChargeAccount: b('isChargeAccount'),
    isChargeApplying: b('isChargeApplying'),
    needOpenPages: Array.isArray(raw?.needOpenPages) ? raw.needOpenPages.filter((x): x is string => typeof x === 'string') : [],
  };
}

export function principalOf(permissions: { permissionValue: string }[], flags?: Parameters<typeof normalizeFlags>[0]): Principal {
  return { permissions: new Set(permissions.map((p) => p.permissionValue)), flags: normalizeFlags(flags) };
}

export interface ResolvedRoute {
  name: string;
  fullPath: string;
  meta: RouteMeta;
  domain: Domain;
  parent?: ResolvedRoute;
  children: ResolvedRoute[];
}

function joinPath(parent: string, segment: string): string {
  return segment.startsWith('/') ? segment : `${parent.replace(/\/$/, '')}/${segment}`;
}

/** The tree with full paths, parents and inherited domains. */
export function resolveTree(tree: RouteNode[], parent?: ResolvedRoute): ResolvedRoute[] {
  return tree.map((node) => {
    const resolved: ResolvedRoute = {
      name: node.name,
      fullPath: joinPath(parent?.fullPath ?? '', node.path),
      meta: node.meta,
      domain: node.domain ?? parent?.domain ?? 'workbench',
      parent,
      children: [],
    };
    resolved.children = resolveTree(node.children ?? [], resolved);
    return resolved;
  });
}

export function flatten(routes: ResolvedRoute[]): ResolvedRoute[] {
  return routes.flatMap((r) => [r, ...flatten(r.children)]);
}

export function hasPermission(value: RouteMeta['permissionValue'], permissions: ReadonlySet<string>): boolean {
  if (value === undefined || value === '*') return true;
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => v === '*' || permissions.has(v));
}

function inList(list: EnterpriseList, flags: EnterpriseFlags): boolean {
  switch (list) {
    case 'orderCenter':
      return flags.inOrderCenterList || flags.isSF;
    case 'behaviorAnalysis':
      return flags.inBehaviorAnalysisList;
    case 'lockCar':
      return flags.inLockCarList;
  }
}

/** The node's own rules: permission, B2B flags, insurance blacklist, white lists. */
export function passesOwnRules(meta: RouteMeta, p: Principal): boolean {
  if (!hasPermission(meta.permissionValue, p.permissions)) return false;
  if (meta.mustB2B && !p.flags.isB2B) return false;
  if (meta.noB2B && p.flags.isB2B) return false;
  if (meta.noBlackList && p.flags.inInsuranceBlacklist) return false;
  if (meta.list && !inList(meta.list, p.flags)) return false;
  return true;
}

/**
 * May the route open? Its ancestors' rules apply too, unless it is open to all
 * (then only its own); a group needs one allowed descendant.
 */
export function canOpen(route: ResolvedRoute, p: Principal): boolean {
  for (let r: ResolvedRoute | undefined = route; r; r = r.parent) {
    if (!passesOwnRules(r.meta, p)) return false;
    if (r.meta.openToAll) break;
  }
  return route.children.length === 0 || route.children.some((c) => canOpenBelow(c, p));
}

function canOpenBelow(route: ResolvedRoute, p: Principal): boolean {
  if (!passesOwnRules(route.meta, p)) return false;
  return route.children.length === 0 || route.children.some((c) => canOpenBelow(c, p));
}

export interface MenuItem {
  name: string;
  path: string;
  title: string;
  icon?: RouteMeta['icon'];
  group?: 1 | 2;
  children: MenuItem[];
}

function menuOf(routes: ResolvedRoute[], p: Principal): MenuItem[] {
  const items: MenuItem[] = [];
  for (const r of routes) {
    if (r.meta.hidden || !passesOwnRules(r.meta, p)) continue;
    const children = menuOf(r.children, p);
    if (r.children.length && !children.length && !r.meta.alwaysShow) continue;
    items.push({ name: r.name, path: r.fullPath, title: r.meta.title, icon: r.meta.icon, group: r.meta.group, children });
  }
  return items;
}

export interface Access {
  routes: ResolvedRoute[];
  menu: MenuItem[];
  byPath: ReadonlyMap<string, ResolvedRoute>;
  canOpen(path: string): boolean;
  /** Where a group path lands: its first allowed leaf. */
  landing(route: ResolvedRoute): string | undefined;
  opensInNewTab(route: ResolvedRoute): boolean;
}

/** One pure function from the user's permissions and flags to menu and guards. */
export function computeAccess(tree: RouteNode[], p: Principal): Access {
  const routes = resolveTree(tree);
  const all = flatten(routes);
  const byPath = new Map(all.map((r) => [r.fullPath, r]));
  const landing = (route: ResolvedRoute): string | undefined => {
    if (!route.children.length) return canOpen(route, p) ? route.fullPath : undefined;
    for (const child of route.children.filter((c) => !c.meta.hidden)) {
      const target = landing(child);
      if (target) return target;
    }
    return undefined;
  };
  return {
    routes,
    menu: menuOf(routes, p),
    byPath,
    canOpen: (path) => {
      const route = byPath.get(path);
      return route !== undefined && canOpen(route, p);
    },
    landing,
    opensInNewTab: (route) => p.flags.needOpenPages.includes(route.name),
  };
}

/** Sidebar search: keeps items whose title (translated, trimmed query) matches, with their ancestors. */
export function filterMenu(items: MenuItem[], query: string, translate: (key: string) => string): MenuItem[] {
  const q = query.trim().toLowerCase();
  if (!q) return items;
  return items.flatMap((item) => {
    if (translate(item.title).toLowerCase().includes(q)) return [item];
    const children = filterMenu(item.children, q, translate);
    return children.length ? [{ ...item, children }] : [];
  });
}
