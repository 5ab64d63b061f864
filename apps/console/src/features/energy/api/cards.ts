/** Charging cards and their amount changes (electricCard, juniorElectricCard, countChangeRecord). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { CARD_KINDS, CARD_STATUSES, CHANGE_KINDS, codesOf, HOLDER_KINDS } from '../components/labels';
import { refreshMoney } from './accounts';
import { CHARGING_KEY } from './keys';

export type ChargingCard = components['schemas']['ChargingCardBody'];
export type CardPage = components['schemas']['ChargingCardPage'];
export type ChargingCardForm = components['schemas']['ChargingCardForm'];
export type CardAmountChange = components['schemas']['CardAmountChangeBody'];
export type CardAmountChangeForm = components['schemas']['CardAmountChangeForm'];
export type CancelCardForm = components['schemas']['CancelCardForm'];
export type CardQuery = NonNullable<operations['list_charging_cards']['parameters']['query']>;
export type AmountChangeQuery = NonNullable<operations['list_card_amount_changes']['parameters']['query']>;

export const CARDS_KEY = [...CHARGING_KEY, 'cards'] as const;
export const AMOUNT_CHANGES_KEY = [...CHARGING_KEY, 'amount-changes'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the card list's query. */
export function cardQuery(filters: ListFilters, page: number, size: number): CardQuery {
  return {
    page,
    size,
    cardNo: manyOf(filters, 'cardNo'),
    plate: manyOf(filters, 'plate'),
    orgId: manyOf(filters, 'orgId'),
    accountId: text(filters, 'accountId'),
    driverName: text(filters, 'driverName'),
    kind: codesOf(manyOf(filters, 'kind'), CARD_KINDS),
    holderKind: codesOf(manyOf(filters, 'holderKind'), HOLDER_KINDS),
    status: codesOf(manyOf(filters, 'status'), CARD_STATUSES),
    issuedTimeStart: text(filters, 'issuedTimeStart'),
    issuedTimeEnd: text(filters, 'issuedTimeEnd'),
    juniorOfOrgId: text(filters, 'juniorOfOrgId'),
  };
}

export const listCards = (query: CardQuery) => api.get('/api/v1/charging/cards', { params: { query } });

/** URL filters to the amount change record's query. */
export function amountChangeQuery(filters: ListFilters, page: number, size: number): AmountChangeQuery {
  return {
    page,
    size,
    cardId: text(filters, 'cardId'),
    cardNo: manyOf(filters, 'cardNo'),
    plate: manyOf(filters, 'plate'),
    orgId: manyOf(filters, 'orgId'),
    kind: codesOf(manyOf(filters, 'kind'), CHANGE_KINDS),
    changeTimeStart: text(filters, 'changeTimeStart'),
    changeTimeEnd: text(filters, 'changeTimeEnd'),
  };
}

export const listAmountChanges = (query: AmountChangeQuery) => api.get('/api/v1/charging/card-amount-changes', { params: { query } });

export function useCard(id: string | undefined) {
  return useQuery({
    queryKey: [...CARDS_KEY, 'detail', id ?? ''],
    queryFn: () => api.get('/api/v1/charging/cards/{id}', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
  });
}

/** Issues a card; the key makes a retried submit issue one card. */
export function useCreateCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: ChargingCardForm; idempotencyKey: string }) => api.post('/api/v1/charging/cards', { body, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: CHARGING_KEY }),
  });
}

export function useUpdateCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ChargingCardForm }) => api.put('/api/v1/charging/cards/{id}', { params: { path: { id } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: CARDS_KEY }),
  });
}

export function useFreezeCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) => api.post('/api/v1/charging/cards/{id}/freeze', { params: { path: { id } }, body: { reason } }),
    onSuccess: () => client.invalidateQueries({ queryKey: CARDS_KEY }),
  });
}

export function useUnfreezeCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id }: { id: string }) => api.post('/api/v1/charging/cards/{id}/unfreeze', { params: { path: { id } } }),
    onSuccess: () => client.invalidateQueries({ queryKey: CARDS_KEY }),
  });
}

/** Cancels (or reports lost) a card; its balance goes back to the account, so every balance refreshes. */
export function useCancelCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body, idempotencyKey }: { id: string; body: CancelCardForm; idempotencyKey: string }) =>
      api.post('/api/v1/charging/cards/{id}/cancel', { params: { path: { id } }, body, idempotencyKey }),
    onSuccess: () => refreshMoney(client),
  });
}

/** Tops up or withdraws a card's amount against its account. */
export function useChangeCardAmount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body, idempotencyKey }: { id: string; body: CardAmountChangeForm; idempotencyKey: string }) =>
      api.post('/api/v1/charging/cards/{id}/amount-changes', { params: { path: { id } }, body, idempotencyKey }),
    onSuccess: () => refreshMoney(client),
  });
}

