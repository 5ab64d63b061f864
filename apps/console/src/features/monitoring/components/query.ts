/** Shared pieces of the monitoring lists' URL → query mapping. */
import dayjs from 'dayjs';
import { oneOf, type ListFilters } from '@/lib/list-url';

/** A filter's date-time text (yyyy-MM-dd HH:mm:ss, local) as RFC 3339 with the offset, as the monitoring routes take it. */
export function rfc3339(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const d = dayjs(text);
  return d.isValid() ? d.format() : undefined;
}

export const timeFilter = (filters: ListFilters, key: string) => rfc3339(oneOf(filters, key) || undefined);

/** Fen as yuan with two decimals. */
export const yuan = (fen: number | null | undefined) => (fen === null || fen === undefined ? '' : (fen / 100).toFixed(2));
