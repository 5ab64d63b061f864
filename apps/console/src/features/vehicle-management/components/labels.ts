/** The maintenance code lists (checked against the generated API enums) and the km ↔ metre units. */
import { enumValues } from '@/lib/enum-values';
import type { components } from '@/lib/api/schema';

type Schemas = components['schemas'];
export type MaintenanceKind = Schemas['MaintenanceKind'];
export type ReminderStatus = Schemas['MaintenanceReminderStatus'];
export type MaintenanceSchedule = Schemas['MaintenanceSchedule'];

export const MAINTENANCE_KINDS = enumValues<MaintenanceKind>()(
  'ROUTINE_SERVICE',
  'TIRE_ROTATION',
  'BRAKE_CHECK',
  'BATTERY_CHECK',
  'AIR_CONDITIONING',
  'REFRIGERATION_UNIT',
);
/** Open states most urgent first, then DONE (listed only when asked for). */
export const REMINDER_STATUSES = enumValues<ReminderStatus>()(
  'OVERDUE',
  'DUE',
  'UPCOMING',
  'OK',
  'DONE',
);
export const SCHEDULES = enumValues<MaintenanceSchedule>()('KEEP', 'RESET');

/** Tag colours of the due states. */
export const STATUS_COLORS: Record<ReminderStatus, string> = {
  OVERDUE: 'error',
  DUE: 'volcano',
  UPCOMING: 'warning',
  OK: 'success',
  DONE: 'default',
};

/** Metres on the wire, kilometres on screen (one decimal at most). */
export const kmOf = (m: number | null | undefined) =>
  m === null || m === undefined ? null : Math.round(m / 100) / 10;
export const metresOf = (km: unknown) =>
  km === null || km === undefined || km === ''
    ? 0
    : Math.round(Number(km) * 1000);
/** A distance for a table cell: '' (shown --) when unknown. */
export const kmText = (m: number | null | undefined) =>
  m ? (kmOf(m) ?? 0).toLocaleString('zh-CN') : '';
