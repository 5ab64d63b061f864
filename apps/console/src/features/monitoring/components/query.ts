/** Shared pieces of the monitoring lists' URL → query mapping. */
import dayjs from 'dayjs';
import { BLANK } from '@/lib/format';
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

/** Seconds as '1 h 5 min' / '3 min 20 s'. */
export function durationText(seconds: number | null | undefined, t: (k: string, o?: Record<string, unknown>) => string): string {
  if (seconds === null || seconds === undefined) return BLANK;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h) return t('monitoring:duration.hm', { h, m });
  if (m) return t('monitoring:duration.ms', { m, s });
  return t('monitoring:duration.s', { s });
}
