import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';

export type Role = components['schemas']['RoleBody'];
export type RoleForm = components['schemas']['RoleForm'];
export type PermissionNode = components['schemas']['PermissionNode'];
export type RoleQuery = NonNullable<operations['list_roles']['parameters']['query']>;

export const ROLES_KEY = ['system', 'roles'] as const;

/** Filter-bar values to the list's query parameters (blank name left out). */
export function roleQuery(filters: Record<string, unknown>, page: number, size: number): RoleQuery {
  const name = typeof filters.name === 'string' ? filters.name.trim() : '';
  return { page, size, ...(name ? { name } : {}) };
}

/** `roleListPage`: the enterprise's roles, a page of them. */
export const listRoles = (query: RoleQuery) => api.get('/api/v1/system/roles', { params: { query } });

export function useRoles(query: RoleQuery, enabled = true) {
  return useQuery({
    queryKey: [...ROLES_KEY, 'list', query],
    queryFn: () => listRoles(query),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useRole(id: string | undefined) {
  return useQuery({
    queryKey: [...ROLES_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/system/roles/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** The permission catalogue as a tree of groups (labels zh/en/ja). */
export function usePermissionTree(enabled = true) {
  return useQuery({
    queryKey: ['system', 'permissions', 'tree'],
    queryFn: () => api.get('/api/v1/system/permissions/tree'),
    staleTime: Infinity,
    enabled,
  });
}

function useRoleMutation<V>(fn: (vars: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    // Users show role names: their lists go stale too.
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ROLES_KEY }), client.invalidateQueries({ queryKey: ['system', 'users'] })]),
  });
}

export const useCreateRole = () => useRoleMutation((body: RoleForm) => api.post('/api/v1/system/roles', { body }));

export const useUpdateRole = () =>
  useRoleMutation(({ id, body }: { id: string; body: RoleForm }) => api.put('/api/v1/system/roles/{id}', { params: { path: { id } }, body }));

export const useDeleteRole = () => useRoleMutation((id: string) => api.delete('/api/v1/system/roles/{id}', { params: { path: { id } } }));
