import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';

export type ExportRecord = components['schemas']['ExportRecordBody'];
export type ExportQuery = NonNullable<operations['list_export_records']['parameters']['query']>;

/** 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired. */
export const EXPORT_STATUSES = [1, 2, 3, 4, 5] as const;
const UNFINISHED = [1, 2];
/** While an export is queued or running the list looks again this often. */
export const EXPORT_POLL_MS = 5_000;

export const exportStatusColor = (status: number): string =>
  ({ 1: 'default', 2: 'processing', 3: 'success', 4: 'error', 5: 'warning' })[status] ?? 'default';

export function exportQuery(filters: Record<string, unknown>, page: number, size: number): ExportQuery {
  const status = Number(filters.status);
  return { page, size, ...(EXPORT_STATUSES.includes(status as 1) ? { status } : {}) };
}

/** Whether any record on the page is still on its way (then the list polls). */
export const hasUnfinished = (records: ExportRecord[] | undefined): boolean => !!records?.some((r) => UNFINISHED.includes(r.status));

const KEY = ['export-records'] as const;

export function useExportRecords(query: ExportQuery) {
  return useQuery({
    queryKey: [...KEY, 'list', query],
    queryFn: () => api.get('/api/v1/export-records', { query }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (hasUnfinished(q.state.data?.list) ? EXPORT_POLL_MS : false),
  });
}

/**
 * A short-lived signed link to the finished file, fetched fresh when the user
 * asks: the browser opens it without the session header.
 */
export function useDownloadLink() {
  const client = useQueryClient();
  return (id: string) =>
    client
      .fetchQuery({ queryKey: [...KEY, 'file', id], queryFn: () => api.get('/api/v1/export-records/{id}/file', { path: { id } }), staleTime: 0 })
      .then((r) => r.url);
}
