/** The risk code lists (checked against the generated API enums) and how they show. */
import { enumValues } from '@/lib/enum-values';
import type { components } from '@/lib/api/schema';

type Schemas = components['schemas'];
export type RiskLevel = Schemas['RiskLevel'];
export type AlarmType = Schemas['AlarmType'];
export type AlarmStatus = Schemas['AlarmStatus'];
export type AlarmHandleMethod = Schemas['AlarmHandleMethod'];
export type AlarmRuleKind = Schemas['AlarmRuleKind'];
export type AccidentSeverity = Schemas['AccidentSeverity'];
export type AccidentLiability = Schemas['AccidentLiability'];
export type AccidentStatus = Schemas['AccidentStatus'];
export type ServiceChannel = Schemas['ServiceChannel'];
export type ServiceCategory = Schemas['ServiceCategory'];
export type ServiceRecordStatus = Schemas['ServiceRecordStatus'];
export type WarningType = Schemas['WarningType'];
export type WarningStatus = Schemas['WarningStatus'];

export const RISK_LEVELS = enumValues<RiskLevel>()('LOW', 'MEDIUM', 'HIGH');
export const ALARM_TYPES = enumValues<AlarmType>()(
  'OVERSPEED', 'FATIGUE_DRIVING', 'PHONE_USE', 'SMOKING', 'DISTRACTION', 'FORWARD_COLLISION', 'LANE_DEPARTURE',
  'HARSH_BRAKING', 'HARSH_ACCELERATION', 'GEOFENCE', 'LOW_BATTERY', 'BATTERY_FAULT', 'TEMPERATURE', 'CAMERA_BLOCKED',
  'NIGHT_DRIVING', 'EMERGENCY', 'DANGER_WARNING', 'TERMINAL_FAULT', 'POWER_CUT', 'COLLISION', 'ROLLOVER',
  'ILLEGAL_DOOR_OPENING', 'THEFT', 'OFFLINE', 'TERMINAL_OTHER', 'HEADWAY_TOO_SHORT', 'PEDESTRIAN_COLLISION',
  'FREQUENT_LANE_CHANGE', 'ROAD_SIGN_OVER_LIMIT', 'OBSTACLE', 'DRIVER_ABSENT', 'BLIND_SPOT', 'TYRE_PRESSURE', 'ACTIVE_SAFETY_OTHER',
);
export const ALARM_STATUSES = enumValues<AlarmStatus>()('UNHANDLED', 'PROCESSING', 'HANDLED', 'FALSE_ALARM');
export const HANDLE_METHODS = enumValues<AlarmHandleMethod>()('VOICE_PROMPT', 'PHONE_CALL', 'TEXT_MESSAGE', 'NO_ACTION');
export const RULE_KINDS = enumValues<AlarmRuleKind>()('OVERSPEED', 'FATIGUE', 'NIGHT_DRIVING', 'LOW_SOC', 'TERMINAL', 'FENCE_WINDOW', 'TEMPERATURE', 'OFFLINE');
/** Which crossings a fence-window rule watches (fenceOnEnter, fenceOnExit). */
export const FENCE_DIRECTIONS = ['enter', 'exit'] as const;
export const ACCIDENT_SEVERITIES = enumValues<AccidentSeverity>()('PROPERTY_ONLY', 'MINOR_INJURY', 'SERIOUS_INJURY', 'FATAL');
export const ACCIDENT_LIABILITIES = enumValues<AccidentLiability>()('UNDETERMINED', 'FULL', 'MAIN', 'EQUAL', 'SECONDARY', 'NONE');
export const ACCIDENT_STATUSES = enumValues<AccidentStatus>()('REPORTED', 'LOSS_ASSESSMENT', 'REPAIRING', 'CLAIMING', 'CLOSED');
export const SERVICE_CHANNELS = enumValues<ServiceChannel>()('PHONE', 'ONLINE_CHAT', 'DRIVER_APP', 'WECOM');
export const SERVICE_CATEGORIES = enumValues<ServiceCategory>()('ROADSIDE_ASSISTANCE', 'FAULT_REPORT', 'ACCIDENT_REPORT', 'CONSULTATION', 'COMPLAINT', 'OTHER');
export const SERVICE_STATUSES = enumValues<ServiceRecordStatus>()('OPEN', 'IN_PROGRESS', 'RESOLVED', 'CLOSED');
export const WARNING_TYPES = enumValues<WarningType>()(
  'INSURANCE_EXPIRING', 'INSPECTION_DUE', 'MAINTENANCE_DUE', 'LICENCE_EXPIRING', 'LONG_IDLE', 'LONG_OFFLINE', 'NIGHT_DRIVING',
  'ABNORMAL_ENERGY_USE', 'FREQUENT_ALARMS', 'PAYMENT_OVERDUE', 'ID_CARD_EXPIRING',
);
export const WARNING_STATUSES = enumValues<WarningStatus>()('UNREAD', 'ACKNOWLEDGED', 'RESOLVED');

/** The list opens on the alarms still to work on. */
export const OPEN_STATUSES: AlarmStatus[] = ['UNHANDLED', 'PROCESSING'];

/** Tag colours: the higher the level, the hotter. */
export const LEVEL_COLORS: Record<RiskLevel, string> = { LOW: 'blue', MEDIUM: 'orange', HIGH: 'red' };
export const STATUS_COLORS: Record<AlarmStatus, string> = { UNHANDLED: 'error', PROCESSING: 'processing', HANDLED: 'success', FALSE_ALARM: 'default' };

/** The 0x0200 alarm bits a terminal rule may name (JT/T 808-2019 table 24; 15-17 are reserved). */
export const TERMINAL_BITS: readonly number[] = Array.from({ length: 32 }, (_, bit) => bit).filter((bit) => bit < 15 || bit > 17);

/** Remarks and reasons: at most this many characters (the server's limit). */
export const REMARK_MAX = 500;

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** How long something lasted, e.g. 1小时5分, 3分20秒, 45秒. */
export function durationText(t: Translate, seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return t('risk:duration.hours', { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  if (s >= 60) return t('risk:duration.minutes', { m: Math.floor(s / 60), s: s % 60 });
  return t('risk:duration.seconds', { s });
}

/** Minutes of the day as HH:mm. */
export const minuteText = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** HH:mm as minutes of the day; undefined when it is not a time. */
export function minuteOf(text: unknown): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(String(text ?? '').trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}
