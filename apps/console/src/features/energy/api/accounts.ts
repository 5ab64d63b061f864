/** Charging accounts and their allocations (accountManagement). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { ALLOCATION_DIRECTIONS, codesOf } from '../components/labels';
import { CHARGING_KEY } from './keys';

export type ChargingAccount = components['schemas']['ChargingAccountBody'];
export type BalanceAllocation = components['schemas']['BalanceAllocationBody'];
export type AccountQuery = NonNullable<operations['list_charging_accounts']['parameters']['query']>;
export type AllocationQuery = NonNullable<operations['list_balance_allocations']['parameters']['query']>;
export type AllocateForm = components['schemas']['AllocateForm'];
export type ReclaimForm = components['schemas']['ReclaimForm'];
export type AccountForm = components['schemas']['ChargingAccountForm'];

/** Accounts, allocations and cards move together: one money write refreshes them all. */
export const ACCOUNTS_KEY = [...CHARGING_KEY, 'accounts'] as const;
export const ALLOCATIONS_KEY = [...CHARGING_KEY, 'allocations'] as const;

/** The account tree (flat, parents first), optionally filtered. */
export function useChargingAccounts(query: AccountQuery = {}, enabled = true) {
  return useQuery({
    queryKey: [...ACCOUNTS_KEY, 'tree', query],
    queryFn: () => api.get('/api/v1/charging/accounts', { params: { query } }),
    enabled,
  });
}

export interface AccountNode extends ChargingAccount {
  children?: AccountNode[];
}

/** The flat list (each names its parent) as a tree; accounts whose parent is out of scope become roots. */
export function accountTree(accounts: readonly ChargingAccount[]): AccountNode[] {
  const ids = new Set(accounts.map((a) => a.id));
  const byParent = new Map<string, ChargingAccount[]>();
  for (const a of accounts) {
    const parent = a.parentAccountId && ids.has(a.parentAccountId) ? a.parentAccountId : '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), a]);
  }
  const build = (parent: string): AccountNode[] =>
    (byParent.get(parent) ?? []).map((a) => {
      const children = build(a.id);
      return children.length ? { ...a, children } : { ...a };
    });
  return build('');
}

/** The open accounts directly below `id` (where it may allocate to). */
export function directChildren(accounts: readonly ChargingAccount[], id: string | undefined): ChargingAccount[] {
  return id ? accounts.filter((a) => a.parentAccountId === id && a.status !== 'CLOSED') : [];
}

/** URL filters to the allocation record's query. */
export function allocationQuery(filters: ListFilters, page: number, size: number): AllocationQuery {
  return {
    page,
    size,
    accountId: oneOf(filters, 'accountId') || undefined,
    orgId: manyOf(filters, 'orgId'),
    direction: codesOf(manyOf(filters, 'direction'), ALLOCATION_DIRECTIONS)[0],
    allocateTimeStart: oneOf(filters, 'allocateTimeStart') || undefined,
    allocateTimeEnd: oneOf(filters, 'allocateTimeEnd') || undefined,
  };
}

export const listAllocations = (query: AllocationQuery) => api.get('/api/v1/charging/allocations', { params: { query } });

/** After a money move every balance on screen may have changed. */
export const refreshMoney = (client: ReturnType<typeof useQueryClient>) => client.invalidateQueries({ queryKey: CHARGING_KEY });

/** Allocates from `accountId` to its direct children; the key makes a retried submit move the money once. */
export function useAllocate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ accountId, body, idempotencyKey }: { accountId: string; body: AllocateForm; idempotencyKey: string }) =>
      api.post('/api/v1/charging/accounts/{id}/allocate', { params: { path: { id: accountId } }, body, idempotencyKey }),
    onSuccess: () => refreshMoney(client),
  });
}

/** Reclaims from a child account back to its parent. */
export function useReclaim() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ accountId, body, idempotencyKey }: { accountId: string; body: ReclaimForm; idempotencyKey: string }) =>
      api.post('/api/v1/charging/accounts/{id}/reclaim', { params: { path: { id: accountId } }, body, idempotencyKey }),
    onSuccess: () => refreshMoney(client),
  });
}

/** Changes an account's low-balance threshold or freezes/unfreezes it. */
export function useUpdateAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ accountId, body }: { accountId: string; body: AccountForm }) => api.put('/api/v1/charging/accounts/{id}', { params: { path: { id: accountId } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ACCOUNTS_KEY }),
  });
}
