import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { serveOrgKeys } from '@/components/area-picker/serve-org-api';
import type { components } from '@/lib/api/schema';

export type OrgNode = components['schemas']['OrgNodeBody'];
export type OrgCreateForm = components['schemas']['OrgCreateForm'];
export type OrgUpdateForm = components['schemas']['OrgUpdateForm'];

/** 1 enabled, 2 disabled (organisations, roles and users alike). */
export const STATUS_ENABLED = 1;
export const STATUS_DISABLED = 2;

export const ORGS_KEY = ['system', 'orgs'] as const;

export interface OrgTreeQuery {
  name?: string;
  includeDisabled?: boolean;
}

/** The organisation tree (`childs` shape, console spec §3); matches keep their ancestors. */
export function useOrgTree(query: OrgTreeQuery = {}, enabled = true) {
  return useQuery({
    queryKey: [...ORGS_KEY, query],
    queryFn: () => api.get('/api/v1/system/orgs', { params: { query } }),
    enabled,
  });
}

/** A TreeSelect / Tree option of an organisation. */
export interface OrgOption {
  value: string;
  title: string;
  disabled?: boolean;
  children?: OrgOption[];
}

/**
 * The tree as picker options. Nodes in `exclude` are left out with their whole
 * subtree (a node cannot move under itself); disabled organisations can be shown
 * but not picked.
 */
export function orgOptions(nodes: readonly OrgNode[], exclude?: string): OrgOption[] {
  return nodes
    .filter((n) => n.id !== exclude)
    .map((n) => {
      const children = orgOptions(n.childs ?? [], exclude);
      return {
        value: n.id,
        title: n.name,
        ...(n.status === STATUS_DISABLED ? { disabled: true } : {}),
        ...(children.length ? { children } : {}),
      };
    });
}

/** The root organisation is the enterprise itself (no parent): never disabled or deleted. */
export const isRootOrg = (node: OrgNode): boolean => !node.parentId;

/** Every id of the tree, depth first (expanding a searched tree fully). */
export function allOrgIds(nodes: readonly OrgNode[]): string[] {
  return nodes.flatMap((n) => [n.id, ...allOrgIds(n.childs ?? [])]);
}

/** The node with `id`, anywhere in the tree. */
export function findOrg(nodes: readonly OrgNode[], id: string): OrgNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = findOrg(n.childs ?? [], id);
    if (below) return below;
  }
  return undefined;
}

function useOrgMutation<V, R>(fn: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => client.invalidateQueries({ queryKey: ORGS_KEY }) });
}

export const useCreateOrg = () => useOrgMutation((body: OrgCreateForm) => api.post('/api/v1/system/orgs', { body }));

export const useUpdateOrg = () =>
  useOrgMutation(({ id, body }: { id: string; body: OrgUpdateForm }) => api.put('/api/v1/system/orgs/{id}', { params: { path: { id } }, body }));

/** Moves a node with its subtree; the server refuses cycles with a message the client toasts. */
export const useMoveOrg = () =>
  useOrgMutation(({ id, parentId }: { id: string; parentId: string }) => api.post('/api/v1/system/orgs/{id}/move', { params: { path: { id } }, body: { parentId } }));

export const useSetOrgStatus = () =>
  useOrgMutation(({ id, status }: { id: string; status: number }) => api.post('/api/v1/system/orgs/{id}/status', { params: { path: { id } }, body: { status } }));

export type ServeArea = components['schemas']['ServeAreaBody'];

const serveAreasKey = (id: string) => [...ORGS_KEY, 'serve-areas', id] as const;

/** The cities one organisation serves (服务区域), in the order set. */
export function useOrgServeAreas(id: string | undefined) {
  return useQuery({
    queryKey: serveAreasKey(id ?? ''),
    queryFn: () => api.get('/api/v1/system/orgs/{id}/serve-areas', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** Replaces the cities an organisation serves; the serve-organisation lookups follow. */
export function useSetOrgServeAreas() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, cityCodes }: { id: string; cityCodes: string[] }) =>
      api.put('/api/v1/system/orgs/{id}/serve-areas', { params: { path: { id } }, body: { cityCodes } }),
    onSuccess: (_, { id }) => {
      void client.invalidateQueries({ queryKey: serveAreasKey(id) });
      void client.invalidateQueries({ queryKey: serveOrgKeys.all });
    },
  });
}

/** Deletes an organisation without children and members; the server refuses others with a message. */
export const useDeleteOrg = () => useOrgMutation((id: string) => api.delete('/api/v1/system/orgs/{id}', { params: { path: { id } } }));
