import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';

export type Article = components['schemas']['ArticleBody'];
export type Feedback = components['schemas']['FeedbackBody'];
export type FeedbackQuery = NonNullable<operations['list_feedback']['parameters']['query']>;

/** The server's limits on feedback. */
export const FEEDBACK_MAX = 500;
export const CONTACT_MAX = 50;

const KEY = ['help'] as const;

/** Manual pages grouped by category, in the server's order (by sort) within each. */
export function groupArticles(articles: Article[]): { category: string; articles: Article[] }[] {
  const groups = new Map<string, Article[]>();
  for (const a of [...articles].sort((x, y) => x.sort - y.sort)) {
    const list = groups.get(a.category) ?? [];
    list.push(a);
    groups.set(a.category, list);
  }
  return [...groups].map(([category, list]) => ({ category, articles: list }));
}

export function useArticles() {
  return useQuery({ queryKey: [...KEY, 'articles'], queryFn: () => api.get('/api/v1/help/articles'), staleTime: 5 * 60_000 });
}

export function useArticle(id: string) {
  return useQuery({ queryKey: [...KEY, 'article', id], queryFn: () => api.get('/api/v1/help/articles/{id}', { params: { path: { id } } }), enabled: !!id, staleTime: 5 * 60_000 });
}

export function useMyFeedback(query: FeedbackQuery) {
  return useQuery({ queryKey: [...KEY, 'feedback', query], queryFn: () => api.get('/api/v1/help/feedback', { params: { query } }), placeholderData: keepPreviousData });
}

export function useSubmitFeedback() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { content: string; contact: string; attachmentKeys: string[] }) => api.post('/api/v1/help/feedback', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: [...KEY, 'feedback'] }),
  });
}
