/** 完成保养 as dynamic-form data: the service done and how the next one is scheduled. */
import dayjs from 'dayjs';
import type { FormRule } from 'antd';
import type {
  FormField,
  FormValues,
} from '@/components/dynamic-form/field-schema';
import type { CompleteForm, Reminder } from '../api/maintenance';
import { SCHEDULES, kmOf, metresOf, type MaintenanceSchedule } from './labels';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The largest odometer typed, km (the server checks it against telemetry). */
export const MAX_ODOMETER_KM = 10_000_000;

const notInFuture = (t: T): FormRule => ({
  validator: (_, value: unknown) =>
    dayjs.isDayjs(value) && value.isAfter(dayjs(), 'day')
      ? Promise.reject(new Error(t('vehicleManagement:complete.futureTime')))
      : Promise.resolve(),
});

/** `planItems`: the plan's items, offered and all ticked (none ticked: the plan's). */
export function completeFields(
  t: T,
  reminder: Reminder | undefined,
  planItems: readonly string[],
): FormField[] {
  const c = (key: string) => t(`vehicleManagement:complete.${key}`);
  const km = t('vehicleManagement:common.km');
  return [
    {
      kind: 'date',
      name: 'serviceTime',
      label: c('serviceTime'),
      required: true,
      rules: [notInFuture(t)],
      initialValue: dayjs(),
      span: 12,
    },
    {
      kind: 'number',
      name: 'serviceOdometerKm',
      label: c('serviceOdometer'),
      required: true,
      min: 0,
      max: MAX_ODOMETER_KM,
      precision: 1,
      unit: km,
      initialValue: kmOf(reminder?.currentOdometerM) || undefined,
      span: 12,
    },
    {
      kind: 'text',
      name: 'supplier',
      label: c('supplier'),
      maxLength: 100,
      span: 12,
    },
    { kind: 'money-fen', name: 'costFen', label: c('cost'), span: 12 },
    {
      kind: 'select',
      name: 'items',
      label: c('items'),
      multiple: true,
      options: planItems.map((i) => ({ value: i, label: i })),
      initialValue: [...planItems],
      span: 24,
    },
    {
      kind: 'radio',
      name: 'schedule',
      label: c('schedule'),
      required: true,
      options: SCHEDULES.map((s) => ({ value: s, label: c(`schedules.${s}`) })),
      initialValue: 'KEEP' satisfies MaintenanceSchedule,
      span: 24,
    },
    {
      kind: 'textarea',
      name: 'remark',
      label: c('remark'),
      maxLength: 500,
      span: 24,
    },
  ];
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** What is sent: km typed become metres, the cost is fen already. */
export function completeBody(submitted: FormValues): CompleteForm {
  return {
    serviceTime: text(submitted.serviceTime),
    serviceOdometerM: metresOf(submitted.serviceOdometerKm),
    supplier: text(submitted.supplier),
    costFen: Number(submitted.costFen ?? 0) || 0,
    items: Array.isArray(submitted.items) ? submitted.items.map(String) : [],
    remark: text(submitted.remark),
    repairOrderId: '',
    schedule: submitted.schedule as MaintenanceSchedule,
  };
}
