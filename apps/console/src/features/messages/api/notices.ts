import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { NOTICE_KEY } from '@/lib/counts';

export type Notice = components['schemas']['NoticeBody'];
export type NoticeQuery = NonNullable<operations['list_notices']['parameters']['query']>;

/** Notice categories (dictionary NOTICE_CATEGORY). */
export const NOTICE_CATEGORIES = ['system', 'approval', 'export', 'alarm'] as const;

/** Filter-bar values to the list's query parameters, blanks left out. */
export function noticeQuery(filters: Record<string, unknown>, page: number, size: number): NoticeQuery {
  const category = NOTICE_CATEGORIES.find((c) => c === filters.category);
  const read = filters.read === 'read' ? true : filters.read === 'unread' ? false : undefined;
  return { page, size, ...(read === undefined ? {} : { read }), ...(category ? { category } : {}) };
}

export const NOTICE_LIST_KEY = [...NOTICE_KEY, 'list'] as const;

export const listNotices = (query: NoticeQuery) => api.get('/api/v1/notices', { params: { query } });

export function useNotice(id: string) {
  return useQuery({
    queryKey: [...NOTICE_KEY, 'detail', id],
    queryFn: () => api.get('/api/v1/notices/{id}', { params: { path: { id } } }),
    enabled: !!id,
  });
}

/** `updateReadStatus`: some notices, or all of them; refreshes lists, details and the badge. */
export function useMarkNoticesRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { ids?: string[]; all?: boolean }) => api.post('/api/v1/notices/read', { body: { ids: body.ids ?? [], all: body.all ?? false } }),
    onSuccess: () => client.invalidateQueries({ queryKey: NOTICE_KEY }),
  });
}
