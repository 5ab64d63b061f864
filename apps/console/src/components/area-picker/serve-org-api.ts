/**
 * The serve organisations the caller's data scope reaches, with the cities each
 * serves (`/serve-orgs/tree`, kept whole by their ancestors), fetched and cached
 * through react-query, and their shape as the service-organisation city
 * cascader's options.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';

export type ServeOrgBody = components['schemas']['ServeOrgBody'];
export type ServeAreaBody = components['schemas']['ServeAreaBody'];

/** A choice of the cascader: a serve organisation and one city it serves. */
export interface ServeOrgCity {
  orgId: string;
  orgName: string;
  orgCode: string;
  provinceCode: string;
  provinceName: string;
  cityCode: string;
  cityName: string;
}

/** An option of the cascader: an organisation (its cities, then its serving units below) or a city. */
export interface ServeOrgCityOption {
  value: string;
  label: string;
  disabled?: boolean;
  children?: ServeOrgCityOption[];
  /** The organisation of this option, or the one a city option belongs to. */
  org: ServeOrgBody;
  /** Set on city options. */
  area?: ServeAreaBody;
}

/** What the caller reaches follows their roles: keep it a minute, like the organisation picker. */
export const SERVE_ORG_STALE_MS = 60_000;

export const serveOrgKeys = {
  all: ['serve-orgs'] as const,
  tree: () => ['serve-orgs', 'tree'] as const,
};

/** Failures are silent: the cascader shows its empty state (console spec §8: org lookups resolve to an empty list). */
export const serveOrgTreeQueryOptions = () =>
  queryOptions({
    queryKey: serveOrgKeys.tree(),
    queryFn: () => api.get('/api/v1/serve-orgs/tree', { silent: true }),
    staleTime: SERVE_ORG_STALE_MS,
  });

export const useServeOrgTree = () => useQuery(serveOrgTreeQueryOptions());

const ORG = 'org:';
const CITY = 'city:';
const childrenOf = (org: ServeOrgBody): ServeOrgBody[] => org.childs ?? [];

/** The tree as cascader options: under each organisation its own cities first, then the units below it. */
export function serveOrgCityOptions(tree: readonly ServeOrgBody[]): ServeOrgCityOption[] {
  return tree.map((org) => {
    const children: ServeOrgCityOption[] = [
      ...org.areas.map((area) => ({ value: CITY + area.cityCode, label: area.cityName, org, area })),
      ...serveOrgCityOptions(childrenOf(org)),
    ];
    return { value: ORG + org.id, label: org.name, org, ...(children.length ? { children } : { disabled: true }) };
  });
}

/** What names a choice: the organisation and the city it serves. */
export type ServeOrgCityKey = Pick<ServeOrgCity, 'orgId' | 'cityCode'>;

/** A choice as one URL text, `orgId:cityCode`, so a list's filter can hold it. */
export const serveOrgCityText = (choice: ServeOrgCityKey): string => `${choice.orgId}:${choice.cityCode}`;

/** The key a URL text names, or none when it is not `orgId:cityCode`. */
export function serveOrgCityKeyOf(text: unknown): ServeOrgCityKey | undefined {
  if (typeof text !== 'string') return undefined;
  const [orgId, cityCode, ...rest] = text.split(':');
  return orgId && cityCode && rest.length === 0 ? { orgId, cityCode } : undefined;
}

/** The cascader path of a choice, or none when the tree does not hold it (yet). */
export function pathOf(tree: readonly ServeOrgBody[], choice: ServeOrgCityKey | undefined): string[] | undefined {
  if (!choice) return undefined;
  const walk = (nodes: readonly ServeOrgBody[], trail: string[]): string[] | undefined => {
    for (const org of nodes) {
      const here = [...trail, ORG + org.id];
      if (org.id === choice.orgId && org.areas.some((a) => a.cityCode === choice.cityCode)) return [...here, CITY + choice.cityCode];
      const below = walk(childrenOf(org), here);
      if (below) return below;
    }
    return undefined;
  };
  return walk(tree, []);
}

/** The choice a cascader path ends in: its city and the organisation serving it. */
export function choiceOf(selected: readonly ServeOrgCityOption[] | undefined): ServeOrgCity | undefined {
  const last = selected?.[selected.length - 1];
  if (!last?.area) return undefined;
  const { org, area } = last;
  return {
    orgId: org.id,
    orgName: org.name,
    orgCode: org.orgCode,
    provinceCode: area.provinceCode,
    provinceName: area.provinceName,
    cityCode: area.cityCode,
    cityName: area.cityName,
  };
}
