import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type ApiData } from '@/lib/api-client';

export type SimpleOrg = ApiData<'/api/v1/orgs/simple', 'get'>[number];

/** A tree-select option of an organisation. */
export interface OrgTreeOption {
  value: string;
  label: string;
  title: string;
  children?: OrgTreeOption[];
}

/** The flat organisation list (`parentId`) as a tree, in the server's order; orphans become roots. */
export function orgTree(orgs: readonly SimpleOrg[]): OrgTreeOption[] {
  const ids = new Set(orgs.map((o) => o.orgId));
  const byParent = new Map<string, SimpleOrg[]>();
  for (const org of orgs) {
    const parent = org.parentId && ids.has(org.parentId) ? org.parentId : '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), org]);
  }
  const build = (parent: string): OrgTreeOption[] =>
    (byParent.get(parent) ?? []).map((o) => {
      const children = build(o.orgId);
      return { value: o.orgId, label: o.name, title: o.name, ...(children.length ? { children } : {}) };
    });
  return build('');
}

/** The organisations the user may pick (filters and forms), as a tree; a failed look-up leaves the options empty (the page says what failed). */
export function useOrgTreeOptions(): OrgTreeOption[] {
  const { data } = useQuery({ queryKey: ['orgs', 'simple'], queryFn: () => api.get('/api/v1/orgs/simple', { silent: true }), staleTime: 60_000 });
  return useMemo(() => orgTree(data ?? []), [data]);
}
