/** Colours and tags of the monitoring codes (legend, markers, tables). */
import type { PositionStatus } from '../api/positions';

export const STATUS_COLORS: Record<PositionStatus, string> = {
  driving: '#389e0d',
  parked: '#1677ff',
  charging: '#08979c',
  offline: '#8c8c8c',
  alarm: '#e5252a',
};

/**
 * A cluster takes the colour of its most common status (alarms, usually few,
 * show as a red count on its edge instead: colouring every cluster with one
 * alarm red would paint the national view red).
 */
export function clusterStatus(statuses: readonly PositionStatus[]): PositionStatus {
  const counts = new Map<PositionStatus, number>();
  let best: PositionStatus = 'offline';
  let bestCount = 0;
  for (const s of statuses) {
    const n = (counts.get(s) ?? 0) + 1;
    counts.set(s, n);
    if (n > bestCount) {
      best = s;
      bestCount = n;
    }
  }
  return best;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The label of a code of group `group` ('' when none: tables show '--'). */
export const codeLabel = (t: Translate, group: string, code: string | null | undefined): string => (code ? t(`monitoring:codes.${group}.${code}`, { defaultValue: code }) : '');

export const codeOptions = (t: Translate, group: string, codes: readonly string[]) => codes.map((value) => ({ value, label: codeLabel(t, group, value) }));

/** Keeps the values of a code list (URL filters are text). */
export const codesOf = <T extends string>(values: string[], codes: readonly T[]): T[] => values.filter((v): v is T => (codes as readonly string[]).includes(v));

/** Tag colours of lock command states and lock states. */
export const COMMAND_STATE_COLORS: Record<string, string> = {
  queued: 'default',
  sent: 'processing',
  acknowledged: 'cyan',
  succeeded: 'success',
  failed: 'error',
  timedOut: 'warning',
  expired: 'default',
};
export const LOCK_STATE_COLORS: Record<string, string> = { locked: 'red', unlocked: 'green', unknown: 'default' };
