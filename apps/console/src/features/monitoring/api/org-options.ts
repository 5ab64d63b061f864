import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type ApiData } from '@/lib/api-client';

type SimpleOrg = ApiData<'/api/v1/orgs/simple', 'get'>[number];

export interface OrgTreeOption {
  value: string;
  title: string;
  label: string;
  children?: OrgTreeOption[];
}

/** The flat organisation list as a tree (orphans become roots), for the org filters of these pages. */
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
      return { value: o.orgId, title: o.name, label: o.name, ...(children.length ? { children } : {}) };
    });
  return build('');
}

export function useOrgTreeOptions(): OrgTreeOption[] {
  const { data } = useQuery({ queryKey: ['orgs', 'simple'], queryFn: () => api.get('/api/v1/orgs/simple', { silent: true }), staleTime: 60_000 });
  return useMemo(() => orgTree(data ?? []), [data]);
}
