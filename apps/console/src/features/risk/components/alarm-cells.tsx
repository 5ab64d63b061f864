/** How an alarm's fields show, in the list and the drawer alike. */
import { Tag } from 'antd';
import { BLANK, formatTime } from '@/lib/format';
import type { RiskAlarm } from '../api/alarms';
import { durationText, LEVEL_COLORS, STATUS_COLORS } from './labels';

type T = (key: string, options?: Record<string, unknown>) => string;

export const levelTag = (t: T, row: Pick<RiskAlarm, 'level'>) => (row.level ? <Tag color={LEVEL_COLORS[row.level]}>{t(`risk:level.${row.level}`)}</Tag> : BLANK);
export const statusTag = (t: T, row: Pick<RiskAlarm, 'status'>) => (row.status ? <Tag color={STATUS_COLORS[row.status]}>{t(`risk:status.${row.status}`)}</Tag> : BLANK);
export const typeText = (t: T, row: Pick<RiskAlarm, 'alarmType'>) => (row.alarmType ? t(`risk:type.${row.alarmType}`) : BLANK);
export const endText = (t: T, row: Pick<RiskAlarm, 'endTime' | 'ongoing'>) => (row.ongoing || !row.endTime ? t('risk:ongoing') : formatTime(row.endTime));
/** Instant events have no duration. */
export const durationCell = (t: T, row: Pick<RiskAlarm, 'durationSeconds'>) => (row.durationSeconds > 0 ? durationText(t, row.durationSeconds) : BLANK);
/** Only a closed alarm has a time to handle. */
export const handleTimeCell = (t: T, row: Pick<RiskAlarm, 'status' | 'handleSeconds'>) =>
  row.status === 'HANDLED' || row.status === 'FALSE_ALARM' ? durationText(t, row.handleSeconds) : BLANK;
export const speedCell = (row: Pick<RiskAlarm, 'speedKmh'>) => (row.speedKmh > 0 ? row.speedKmh.toFixed(1) : BLANK);
export const textCell = (value: string | undefined | null) => (value ? value : BLANK);
/** An alarm still open may be assigned, handled or dismissed. */
export const isOpen = (row: Pick<RiskAlarm, 'status'>) => row.status === 'UNHANDLED' || row.status === 'PROCESSING';
