/** Date and number helpers of console spec §9 and the table's blank rules (§2). */

export const DATE_FORMAT = 'YYYY-MM-DD';
export const DATETIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
export const MONTH_FORMAT = 'YYYY-MM';
export const RANGE_START_TIME = '00:00:00';
export const RANGE_END_TIME = '23:59:59';
export const BLANK = '--';

const WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六'];
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Dates, millisecond or 10-digit second timestamps (numbers or digit strings),
 * RFC 3339 strings, or `yyyy-MM-dd[ HH:mm:ss]` strings (local time).
 */
export function toDate(value: Date | number | string | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  let input: number | string = value;
  if (typeof input === 'string' && /^\d+$/.test(input)) input = Number(input);
  if (typeof input === 'number' && String(Math.trunc(input)).length === 10) input *= 1000;
  const iso = typeof input === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(input);
  const date = typeof input === 'number' || iso ? new Date(input) : new Date(input.replace(/-/g, '/'));
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Formats with `{y} {m} {d} {h} {i} {s}` (zero-padded) and `{a}` (Chinese weekday);
 * default year-month-day hour:minute:second. Invalid input gives ''.
 */
export function formatTime(value: Date | number | string | null | undefined, pattern = '{y}-{m}-{d} {h}:{i}:{s}'): string {
  const date = toDate(value);
  if (!date) return '';
  const parts: Record<string, string> = {
    y: String(date.getFullYear()),
    m: pad(date.getMonth() + 1),
    d: pad(date.getDate()),
    h: pad(date.getHours()),
    i: pad(date.getMinutes()),
    s: pad(date.getSeconds()),
    a: WEEKDAYS[date.getDay()],
  };
  return pattern.replace(/\{([ymdhisa])\}/g, (_, key: string) => parts[key]);
}

/** Where the service's days begin and end (the server's daily figures are Asia/Shanghai days). */
export const SERVICE_TIME_ZONE = 'Asia/Shanghai';

const zonedParts = new Map<string, Intl.DateTimeFormat>();

/**
 * `formatTime` on the wall clock of `timeZone` (default Asia/Shanghai) whatever the
 * browser's zone: a day the server sends as its 00:00 +08:00 instant stays that day.
 */
/** Today's date on the service's calendar (Asia/Shanghai), whatever the browser's zone. */
export function serviceToday(now: Date | number = Date.now()): string {
  return formatTimeIn(now, '{y}-{m}-{d}');
}

export function formatTimeIn(value: Date | number | string | null | undefined, pattern = '{y}-{m}-{d} {h}:{i}:{s}', timeZone = SERVICE_TIME_ZONE): string {
  const date = toDate(value);
  if (!date) return '';
  let format = zonedParts.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' });
    zonedParts.set(timeZone, format);
  }
  const n: Record<string, number> = {};
  for (const part of format.formatToParts(date)) if (part.type !== 'literal') n[part.type] = Number(part.value);
  const parts: Record<string, string> = {
    y: String(n.year),
    m: pad(n.month),
    d: pad(n.day),
    h: pad(n.hour),
    i: pad(n.minute),
    s: pad(n.second),
    a: WEEKDAYS[new Date(Date.UTC(n.year, n.month - 1, n.day)).getUTCDay()],
  };
  return pattern.replace(/\{([ymdhisa])\}/g, (_, key: string) => parts[key]);
}

export interface RelativeTime {
  count: number;
  unit: 'minute' | 'hour' | 'day';
}

/** How long ago: whole minutes under an hour, hours under a day, else days. */
export function relativeTime(value: Date | number | string, now = Date.now()): RelativeTime {
  const seconds = Math.max(0, (now - (toDate(value)?.getTime() ?? now)) / 1000);
  if (seconds < 3600) return { count: Math.floor(seconds / 60), unit: 'minute' };
  if (seconds < 86400) return { count: Math.floor(seconds / 3600), unit: 'hour' };
  return { count: Math.floor(seconds / 86400), unit: 'day' };
}

/** 1234 → '1.2k', 2_500_000 → '2.5M', 3e9 → '3G' (trailing zeros dropped). */
export function shortNumber(num: number, digits = 1): string {
  const units = [
    { value: 1e9, symbol: 'G' },
    { value: 1e6, symbol: 'M' },
    { value: 1e3, symbol: 'k' },
  ];
  for (const unit of units) {
    if (num >= unit.value) {
      return (num / unit.value).toFixed(digits).replace(/\.0+$|(\.[0-9]*[1-9])0+$/, '$1') + unit.symbol;
    }
  }
  return String(num);
}

/** The month before `date` as yyyy-MM (January gives December of the previous year). */
export function previousMonth(date = new Date()): string {
  const month = date.getMonth();
  return month === 0 ? `${date.getFullYear() - 1}-12` : `${date.getFullYear()}-${pad(month)}`;
}

/** From the first day of the month three months earlier to today, unpadded (2024-8-1). */
export function lastThreeMonthsRange(today = new Date()): [string, string] {
  const start = new Date(today.getFullYear(), today.getMonth() - 3, 1);
  const plain = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
  return [plain(start), plain(today)];
}

/** Whole days for a date range: start at 00:00:00, end at 23:59:59. */
export function dayRange(start: string, end: string): [string, string] {
  return [`${start} ${RANGE_START_TIME}`, `${end} ${RANGE_END_TIME}`];
}

/** First and last element joined by ' - ', or the single one. */
export function rangeLabel(list: readonly string[]): string {
  if (list.length === 0) return '';
  if (list.length === 1) return list[0];
  return `${list[0]} - ${list[list.length - 1]}`;
}

/** An org path's customer (first) and org (last; '0' when only one; both '' when none). */
export function orgPathIds(path: readonly string[]): { currentClienteleId: string; orgId: string } {
  if (path.length === 0) return { currentClienteleId: '', orgId: '' };
  return { currentClienteleId: path[0], orgId: path.length === 1 ? '0' : path[path.length - 1] };
}

/** What a form or a detail view shows for an empty value (console spec §9); tables show '--'. */
export const DETAIL_BLANK = '-';

/** Detail text (drawers, detail pages): blanks show '-', arrays are joined by commas. */
export function detailText(value: unknown): string {
  const text = cellText(value);
  return text === BLANK ? DETAIL_BLANK : text;
}

/** Table cell text: blanks show '--', arrays are joined by commas. */
export function cellText(value: unknown): string {
  if (Array.isArray(value)) {
    const parts = value.filter((v) => v !== null && v !== undefined && String(v).trim() !== '');
    return parts.length ? parts.join(',') : BLANK;
  }
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return BLANK;
  return String(value);
}
