/** Repair orders (maintainment): orders, records, configuration, statements and bills. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import {
  BILL_STATUSES,
  ORDER_STATUSES,
  REPAIR_KINDS,
  STATEMENT_STATUSES,
} from '../components/repair-labels';

type S = components['schemas'];
export type RepairOrder = S['RepairOrderBody'];
export type RepairOrderDetail = S['RepairOrderDetailBody'];
export type RepairItem = S['RepairItemBody'];
export type RepairRecord = S['RepairRecordBody'];
export type RepairStatement = S['RepairStatementBody'];
export type RepairBill = S['RepairBillBody'];
export type RepairSupplier = S['RepairSupplierBody'];
export type RepairCatalogueItem = S['RepairCatalogueItemBody'];
type Query<K extends keyof operations> = NonNullable<
  operations[K]['parameters']['query']
>;
export type OrderQuery = Query<'list_repair_orders'>;
export type RecordQuery = Query<'list_repair_records'>;
export type StatementQuery = Query<'list_repair_statements'>;
export type BillQuery = Query<'list_repair_bills'>;

export const REPAIRS_KEY = ['vehicle-management', 'repairs'] as const;
export const ORDERS_KEY = [...REPAIRS_KEY, 'orders'] as const;
export const RECORDS_KEY = [...REPAIRS_KEY, 'records'] as const;
export const STATEMENTS_KEY = [...REPAIRS_KEY, 'statements'] as const;
export const BILLS_KEY = [...REPAIRS_KEY, 'bills'] as const;
export const CONFIG_KEY = [...REPAIRS_KEY, 'config'] as const;

const text = (filters: ListFilters, key: string) =>
  oneOf(filters, key) || undefined;

export const orderQuery = (
  filters: ListFilters,
  page: number,
  size: number,
): OrderQuery => ({
  page,
  size,
  plateNumbers: manyOf(filters, 'plateNumbers'),
  orgIds: manyOf(filters, 'orgIds'),
  orderNo: text(filters, 'orderNo'),
  statuses: codesOf(manyOf(filters, 'statuses'), ORDER_STATUSES),
  kinds: codesOf(manyOf(filters, 'kinds'), REPAIR_KINDS),
  shopId: text(filters, 'shopId'),
  createTimeStart: text(filters, 'createTimeStart'),
  createTimeEnd: text(filters, 'createTimeEnd'),
});

export const recordQuery = (
  filters: ListFilters,
  page: number,
  size: number,
): RecordQuery => ({
  page,
  size,
  plateNumbers: manyOf(filters, 'plateNumbers'),
  orgIds: manyOf(filters, 'orgIds'),
  orderNo: text(filters, 'orderNo'),
  kinds: codesOf(manyOf(filters, 'kinds'), REPAIR_KINDS),
  shopId: text(filters, 'shopId'),
  completedTimeStart: text(filters, 'completedTimeStart'),
  completedTimeEnd: text(filters, 'completedTimeEnd'),
});

export const statementQuery = (
  filters: ListFilters,
  page: number,
  size: number,
): StatementQuery => ({
  page,
  size,
  shopId: text(filters, 'shopId'),
  statementNo: text(filters, 'statementNo'),
  statuses: codesOf(manyOf(filters, 'statuses'), STATEMENT_STATUSES),
  startMonth: text(filters, 'startMonth'),
  endMonth: text(filters, 'endMonth'),
});

export const billQuery = (
  filters: ListFilters,
  page: number,
  size: number,
): BillQuery => ({
  page,
  size,
  shopId: text(filters, 'shopId'),
  billNo: text(filters, 'billNo'),
  statuses: codesOf(manyOf(filters, 'statuses'), BILL_STATUSES),
  startMonth: text(filters, 'startMonth'),
  endMonth: text(filters, 'endMonth'),
});

export const listOrders = (query: OrderQuery) =>
  api.get('/api/v1/maintenance/repair-orders', { params: { query } });
export const exportOrders = (query: OrderQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/repair-orders/export', {
    ...options,
    params: { query },
  });
export const listRecords = (query: RecordQuery) =>
  api.get('/api/v1/maintenance/repair-records', { params: { query } });
export const exportRecords = (query: RecordQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/repair-records/export', {
    ...options,
    params: { query },
  });
export const listStatements = (query: StatementQuery) =>
  api.get('/api/v1/maintenance/repair-statements', { params: { query } });
export const exportStatements = (query: StatementQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/repair-statements/export', {
    ...options,
    params: { query },
  });
export const listBills = (query: BillQuery) =>
  api.get('/api/v1/maintenance/repair-bills', { params: { query } });
export const exportBills = (query: BillQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/repair-bills/export', {
    ...options,
    params: { query },
  });

export function useRepairConfig() {
  return useQuery({
    queryKey: CONFIG_KEY,
    queryFn: () => api.get('/api/v1/maintenance/repair-config'),
  });
}

export function useOrderDetail(id: string) {
  return useQuery({
    queryKey: [...ORDERS_KEY, 'detail', id],
    queryFn: () =>
      api.get('/api/v1/maintenance/repair-orders/{orderId}', {
        params: { path: { orderId: id } },
      }),
    enabled: !!id,
  });
}

export function useRecordDetail(id: string) {
  return useQuery({
    queryKey: [...RECORDS_KEY, 'detail', id],
    queryFn: () =>
      api.get('/api/v1/maintenance/repair-records/{recordId}', {
        params: { path: { recordId: id } },
      }),
    enabled: !!id,
  });
}

export function useStatementDetail(id: string) {
  return useQuery({
    queryKey: [...STATEMENTS_KEY, 'detail', id],
    queryFn: () =>
      api.get('/api/v1/maintenance/repair-statements/{statementId}', {
        params: { path: { statementId: id } },
      }),
    enabled: !!id,
  });
}

export function useBillDetail(id: string) {
  return useQuery({
    queryKey: [...BILLS_KEY, 'detail', id],
    queryFn: () =>
      api.get('/api/v1/maintenance/repair-bills/{billId}', {
        params: { path: { billId: id } },
      }),
    enabled: !!id,
  });
}

/** Every change touches several lists: the whole subject is fetched again. */
function useRepairChange<Args, Answer>(call: (args: Args) => Promise<Answer>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => client.invalidateQueries({ queryKey: REPAIRS_KEY }),
  });
}

/** One key per form opening: a retried submit creates one order. */
export const useCreateOrder = () =>
  useRepairChange(
    ({
      body,
      idempotencyKey,
    }: {
      body: S['RepairOrderForm'];
      idempotencyKey: string;
    }) =>
      api.post('/api/v1/maintenance/repair-orders', { body, idempotencyKey }),
  );

const orderMove =
  <Body>(
    path:
      | '/api/v1/maintenance/repair-orders/{orderId}/quote'
      | '/api/v1/maintenance/repair-orders/{orderId}/confirm-price'
      | '/api/v1/maintenance/repair-orders/{orderId}/cancel'
      | '/api/v1/maintenance/repair-orders/{orderId}/complete',
  ) =>
  ({ id, body }: { id: string; body: Body }): Promise<RepairOrder> =>
    api.post(path, { params: { path: { orderId: id } }, body: body as never });

export const useQuoteOrder = () =>
  useRepairChange(
    orderMove<S['RepairQuoteForm']>(
      '/api/v1/maintenance/repair-orders/{orderId}/quote',
    ),
  );
export const useConfirmPrice = () =>
  useRepairChange(
    orderMove<S['ConfirmRepairPriceForm']>(
      '/api/v1/maintenance/repair-orders/{orderId}/confirm-price',
    ),
  );
export const useCancelOrder = () =>
  useRepairChange(
    orderMove<S['CancelRepairOrderForm']>(
      '/api/v1/maintenance/repair-orders/{orderId}/cancel',
    ),
  );
export const useCompleteOrder = () =>
  useRepairChange(
    orderMove<S['CompleteRepairOrderForm']>(
      '/api/v1/maintenance/repair-orders/{orderId}/complete',
    ),
  );

export const useConfirmStatement = () =>
  useRepairChange(
    ({ id, body }: { id: string; body: S['ConfirmRepairStatementForm'] }) =>
      api.post('/api/v1/maintenance/repair-statements/{statementId}/confirm', {
        params: { path: { statementId: id } },
        body,
      }),
  );

export const useSaveThreshold = () =>
  useRepairChange((body: S['RepairThresholdBody']) =>
    api.put('/api/v1/maintenance/repair-config/threshold', { body }),
  );

export const useSaveSupplier = () =>
  useRepairChange((body: RepairSupplier) =>
    body.id
      ? api.put('/api/v1/maintenance/repair-config/suppliers/{supplierId}', {
          params: { path: { supplierId: body.id } },
          body,
        })
      : api.post('/api/v1/maintenance/repair-config/suppliers', { body }),
  );

export const useSaveItem = () =>
  useRepairChange((body: RepairCatalogueItem) =>
    body.id
      ? api.put('/api/v1/maintenance/repair-config/items/{itemId}', {
          params: { path: { itemId: body.id } },
          body,
        })
      : api.post('/api/v1/maintenance/repair-config/items', { body }),
  );
