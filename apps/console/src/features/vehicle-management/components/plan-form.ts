/** The service plan's form as dynamic-form data (distances typed in km, sent in metres). */
import type { FormRule } from 'antd';
import type {
  FormField,
  FormValues,
} from '@/components/dynamic-form/field-schema';
import type { Plan, PlanForm } from '../api/maintenance';
import {
  MAINTENANCE_KINDS,
  kmOf,
  metresOf,
  type MaintenanceKind,
} from './labels';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The server's bounds: 100,000 km, 120 months, a year of warning. */
export const MAX_INTERVAL_KM = 100_000;
export const MAX_INTERVAL_MONTHS = 120;
export const MAX_SOON_DAYS = 365;

/** At least one interval: checked on the distance field, naming both. */
const oneInterval =
  (t: T): FormRule =>
  ({ getFieldValue }) => ({
    validator: () => {
      const km = Number(getFieldValue('intervalKm') ?? 0);
      const months = Number(getFieldValue('intervalMonths') ?? 0);
      return km > 0 || months > 0
        ? Promise.resolve()
        : Promise.reject(
            new Error(t('vehicleManagement:plan.intervalRequired')),
          );
    },
  });

export function planFields(t: T): FormField[] {
  const p = (key: string) => t(`vehicleManagement:plan.${key}`);
  const km = t('vehicleManagement:common.km');
  return [
    {
      kind: 'text',
      name: 'name',
      label: p('name'),
      required: true,
      maxLength: 50,
      span: 12,
    },
    {
      kind: 'select',
      name: 'kind',
      label: p('kind'),
      required: true,
      options: MAINTENANCE_KINDS.map((k) => ({
        value: k,
        label: t(`vehicleManagement:reminder.kinds.${k}`),
      })),
      span: 12,
    },
    { kind: 'org', name: 'orgId', label: p('org'), required: true, span: 12 },
    {
      kind: 'text',
      name: 'vehicleModel',
      label: p('vehicleModel'),
      placeholder: p('allModels'),
      maxLength: 50,
      span: 12,
    },
    {
      kind: 'number',
      name: 'intervalKm',
      label: p('intervalKm'),
      min: 0,
      max: MAX_INTERVAL_KM,
      precision: 0,
      unit: km,
      rules: [oneInterval(t)],
      span: 12,
    },
    {
      kind: 'number',
      name: 'intervalMonths',
      label: p('intervalMonths'),
      min: 0,
      max: MAX_INTERVAL_MONTHS,
      precision: 0,
      unit: t('vehicleManagement:common.months'),
      span: 12,
    },
    {
      kind: 'number',
      name: 'soonKm',
      label: p('soonKm'),
      min: 0,
      max: MAX_INTERVAL_KM,
      precision: 0,
      unit: km,
      span: 12,
    },
    {
      kind: 'number',
      name: 'soonDays',
      label: p('soonDays'),
      min: 0,
      max: MAX_SOON_DAYS,
      precision: 0,
      unit: t('vehicleManagement:common.days'),
      span: 12,
    },
    {
      kind: 'textarea',
      name: 'items',
      label: p('items'),
      placeholder: p('itemsHint'),
      maxLength: 1000,
      span: 24,
    },
    {
      kind: 'textarea',
      name: 'remark',
      label: p('remark'),
      maxLength: 500,
      span: 24,
    },
  ];
}

/** A stored plan as the form's record. */
export function planRecord(plan: Plan | undefined): FormValues | undefined {
  if (!plan) return undefined;
  return {
    ...plan,
    intervalKm: kmOf(plan.intervalM) || undefined,
    soonKm: kmOf(plan.soonM) || undefined,
    items: plan.items.join('\n'),
  };
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const whole = (v: unknown) =>
  v === undefined || v === null || v === '' ? 0 : Math.round(Number(v));

export function planBody(submitted: FormValues): PlanForm {
  return {
    name: text(submitted.name),
    kind: submitted.kind as MaintenanceKind,
    orgId: text(submitted.orgId),
    vehicleModel: text(submitted.vehicleModel),
    intervalM: metresOf(submitted.intervalKm),
    intervalMonths: whole(submitted.intervalMonths),
    soonM: metresOf(submitted.soonKm),
    soonDays: whole(submitted.soonDays),
    items: text(submitted.items)
      .split('\n')
      .map((i) => i.trim())
      .filter(Boolean),
    remark: text(submitted.remark),
  };
}
