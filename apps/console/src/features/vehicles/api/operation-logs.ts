import type { ListAnswer } from '@/components/list-page';
import type { OperationLogEntry } from '@/components/operation-log-table';
import { api } from '@/lib/api-client';
import type { operations } from '@/lib/api/schema';

/** Whose log: a vehicle, a driver or a usage record (`/operation-logs` serves these three). */
export type BusinessType = NonNullable<operations['list_operation_logs']['parameters']['query']>['businessType'];

/**
 * One page of an object's operation log, newest first. Entries carry no id, so
 * each takes its place in the log as its row key.
 */
export async function fetchOperationLogs(businessType: BusinessType, businessId: string, page: number, size: number): Promise<ListAnswer<OperationLogEntry>> {
  const answer = await api.get('/api/v1/operation-logs', { params: { query: { businessType, businessId, pageNum: page, pageSize: size } } });
  return { total: answer.total, list: answer.list.map((entry, i) => ({ ...entry, id: `${businessId}-${(page - 1) * size + i}` })) };
}
