import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';

export type ExportRecord = components['schemas']['ExportRecordBody'];
export type ExportQuery = NonNullable<operations['list_export_records']['parameters']['query']>;

/** 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired, 6 cancelled. */
export const EXPORT_STATUSES = [1, 2, 3, 4, 5, 6] as const;
const QUEUED = 1;
const RUNNING = 2;
const UNFINISHED = [QUEUED, RUNNING];
/** Failed, expired and cancelled exports can run again with the same filters. */
const RETRYABLE = [4, 5, 6];
/** While an export is queued the list looks again this often… */
export const EXPORT_POLL_MS = 5_000;
/** …and while one runs, this often (live progress). */
export const EXPORT_PROGRESS_POLL_MS = 1_500;

export const exportStatusColor = (status: number): string =>
  ({ 1: 'default', 2: 'processing', 3: 'success', 4: 'error', 5: 'warning', 6: 'default' })[status] ?? 'default';

export const canCancel = (r: ExportRecord) => UNFINISHED.includes(r.status);
export const canRetry = (r: ExportRecord) => RETRYABLE.includes(r.status);

/** Rows written of rows to write, and the percentage (none until the total is counted). */
export function exportProgress(r: ExportRecord): { done: number; total: number; percent?: number } {
  const done = r.rowsDone ?? 0;
  const total = r.rowsTotal ?? 0;
  return { done, total, percent: total > 0 ? Math.min(100, Math.floor((done * 100) / total)) : undefined };
}

/** How soon to look again: quickly while one runs, slowly while one waits, not at all otherwise. */
export function pollInterval(records: ExportRecord[] | undefined): number | false {
  if (records?.some((r) => r.status === RUNNING)) return EXPORT_PROGRESS_POLL_MS;
  return hasUnfinished(records) ? EXPORT_POLL_MS : false;
}

export function exportQuery(filters: Record<string, unknown>, page: number, size: number): ExportQuery {
  const status = Number(filters.status);
  return { page, size, ...(EXPORT_STATUSES.includes(status as 1) ? { status } : {}) };
}

/** Whether any record on the page is still on its way (then the list polls). */
export const hasUnfinished = (records: ExportRecord[] | undefined): boolean => !!records?.some((r) => UNFINISHED.includes(r.status));

const KEY = ['export-records'] as const;

export const EXPORT_LIST_KEY = [...KEY, 'list'] as const;

export const listExportRecords = (query: ExportQuery) => api.get('/api/v1/export-records', { params: { query } });

/** Cancel a queued or running export, or run a finished one again; the list follows. */
export function useExportAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'cancel' | 'retry' }) =>
      action === 'cancel'
        ? api.post('/api/v1/export-records/{id}/cancel', { params: { path: { id } } })
        : api.post('/api/v1/export-records/{id}/retry', { params: { path: { id } } }),
    onSettled: () => client.invalidateQueries({ queryKey: KEY }),
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
      .fetchQuery({ queryKey: [...KEY, 'file', id], queryFn: () => api.get('/api/v1/export-records/{id}/file', { params: { path: { id } } }), staleTime: 0 })
      .then((r) => r.url);
}
