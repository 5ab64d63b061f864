/** The customer-service record's form as dynamic-form data, and the body it sends. */
import type { FormRule } from 'antd';
import dayjs from 'dayjs';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { useVehicleOptions } from '@/lib/pickers';
import type { ServiceRecord, ServiceRecordForm } from '../api/service-records';
import { SERVICE_CATEGORIES, SERVICE_CHANNELS, SERVICE_STATUSES, type ServiceCategory, type ServiceChannel, type ServiceRecordStatus } from './labels';
import { searchControl } from './pickers';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The server's rule: 5 to 20 digits, with +, - and spaces allowed between. */
export function phoneOk(value: string): boolean {
  const digits = value.replace(/\D/g, '').length;
  return digits >= 5 && digits <= 20 && /^[\d+\- ]+$/.test(value);
}

const phoneRule = (t: T): FormRule => ({
  validator: (_, value: unknown) => (!value || phoneOk(String(value).trim()) ? Promise.resolve() : Promise.reject(new Error(t('risk:service.phoneFormat')))),
});

const followUpRule = (t: T): FormRule => ({ getFieldValue }) => ({
  validator: (_, value: unknown) => {
    const start: unknown = getFieldValue('startTime');
    return dayjs.isDayjs(value) && dayjs.isDayjs(start) && value.isBefore(start, 'day') ? Promise.reject(new Error(t('risk:service.followUpBeforeStart'))) : Promise.resolve();
  },
});

const options = (t: T, group: string, codes: readonly string[]) => codes.map((value) => ({ value, label: t(`risk:service.${group}.${value}`) }));

/** The form's fields; a record made from an alarm keeps the alarm's vehicle. */
export function serviceRecordFields(t: T, record: ServiceRecord | undefined): FormField[] {
  const s = (key: string) => t(`risk:service.${key}`);
  const vehicle = record ? { value: record.vehicleId, label: record.plateNumber } : undefined;
  return [
    {
      kind: 'custom',
      name: 'vehicleId',
      label: s('vehicle'),
      required: true,
      control: searchControl(useVehicleOptions, vehicle, 'service-vehicle'),
      disabled: () => !!record?.alarmId,
      span: 12,
    },
    { kind: 'date-time', name: 'startTime', label: s('startTime'), required: true, initialValue: dayjs().startOf('minute'), span: 12 },
    { kind: 'text', name: 'callerName', label: s('callerName'), maxLength: 50, span: 12 },
    // Stored masked: an edit shows the mask as a hint and types the number anew.
    { kind: 'text', name: 'callerPhone', label: s('callerPhone'), maxLength: 24, rules: [phoneRule(t)], placeholder: record?.callerMaskedPhone || undefined, span: 12 },
    { kind: 'select', name: 'channel', label: s('channel'), required: true, options: options(t, 'channels', SERVICE_CHANNELS), initialValue: 'PHONE' satisfies ServiceChannel, span: 12 },
    { kind: 'select', name: 'category', label: s('category'), required: true, options: options(t, 'categories', SERVICE_CATEGORIES), span: 12 },
    { kind: 'textarea', name: 'summary', label: s('summary'), required: true, maxLength: 500, span: 24 },
    { kind: 'textarea', name: 'resolution', label: s('resolution'), maxLength: 1000, span: 24 },
    { kind: 'number', name: 'durationSeconds', label: s('durationSeconds'), min: 0, max: 86_400, precision: 0, initialValue: 0, span: 12 },
    { kind: 'date', name: 'followUpTime', label: s('followUpTime'), rules: [followUpRule(t)], span: 12 },
    { kind: 'select', name: 'satisfaction', label: s('satisfaction'), options: [0, 1, 2, 3, 4, 5].map((n) => ({ value: n, label: n ? '★'.repeat(n) : s('notRated') })), initialValue: 0, span: 12 },
    { kind: 'select', name: 'status', label: s('status'), required: true, options: options(t, 'statuses', SERVICE_STATUSES), initialValue: 'OPEN' satisfies ServiceRecordStatus, span: 12 },
  ];
}

/**
 * A stored record as the form's record. The phone is stored masked, so an
 * edit starts it empty: sending the mask back would overwrite the number.
 */
export function serviceRecordValues(record: ServiceRecord | undefined): FormValues | undefined {
  return record ? { ...record, callerPhone: '' } : undefined;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const whole = (v: unknown) => (v === undefined || v === null || v === '' ? 0 : Number(v));

export function serviceRecordBody(submitted: FormValues, record: ServiceRecord | undefined): ServiceRecordForm {
  return {
    vehicleId: text(submitted.vehicleId),
    driverId: record?.driverId ?? '',
    alarmId: record?.alarmId ?? '',
    callerName: text(submitted.callerName),
    callerPhone: text(submitted.callerPhone),
    channel: submitted.channel as ServiceChannel,
    category: submitted.category as ServiceCategory,
    summary: text(submitted.summary),
    resolution: text(submitted.resolution),
    startTime: text(submitted.startTime),
    durationSeconds: whole(submitted.durationSeconds),
    followUpTime: text(submitted.followUpTime),
    satisfaction: whole(submitted.satisfaction),
    status: submitted.status as ServiceRecordStatus,
  };
}
