import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { STATUS_DISABLED, STATUS_ENABLED } from './orgs';

export type User = components['schemas']['UserBody'];
export type UserCreateForm = components['schemas']['UserCreateForm'];
export type UserUpdateForm = components['schemas']['UserUpdateForm'];
export type UserQuery = NonNullable<operations['list_users']['parameters']['query']>;

export const USERS_KEY = ['system', 'users'] as const;

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Filter-bar values to the list's query parameters (blanks left out, status 1 or 2 only). */
export function userQuery(filters: Record<string, unknown>, page: number, size: number): UserQuery {
  const status = Number(filters.status);
  const name = text(filters.name);
  const orgId = text(filters.orgId);
  const roleId = text(filters.roleId);
  return {
    page,
    size,
    ...(name ? { name } : {}),
    ...(orgId ? { orgId } : {}),
    ...(roleId ? { roleId } : {}),
    ...(status === STATUS_ENABLED || status === STATUS_DISABLED ? { status } : {}),
  };
}

/** `userListPage`: the enterprise's members, a page of them, phones masked by the server. */
export const listUsers = (query: UserQuery) => api.get('/api/v1/system/users', { params: { query } });

export function useUserDetail(id: string | undefined) {
  return useQuery({
    queryKey: [...USERS_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/system/users/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

function useUserMutation<V, R>(fn: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    // Roles count their members.
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: USERS_KEY }), client.invalidateQueries({ queryKey: ['system', 'roles'] })]),
  });
}

export const useCreateUser = () => useUserMutation((body: UserCreateForm) => api.post('/api/v1/system/users', { body }));

export const useUpdateUser = () =>
  useUserMutation(({ id, body }: { id: string; body: UserUpdateForm }) => api.put('/api/v1/system/users/{id}', { params: { path: { id } }, body }));

export const useSetUserStatus = () =>
  useUserMutation(({ id, status }: { id: string; status: number }) => api.post('/api/v1/system/users/{id}/status', { params: { path: { id } }, body: { status } }));
