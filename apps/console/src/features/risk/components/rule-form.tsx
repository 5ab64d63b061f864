/** The alarm rule's form: its fields as dynamic-form data, each kind showing its own parameters. */
import { Switch } from 'antd';
import type { FormRule } from 'antd';
import type { CustomControlProps, FormField, FormValues } from '@/components/dynamic-form/field-schema';
import type { AlarmRule, AlarmRuleForm } from '../api/rules';
import { loadFenceOptions } from '../api/pickers';
import { FENCE_DIRECTIONS, minuteOf, minuteText, RISK_LEVELS, RULE_KINDS, TERMINAL_BITS, type AlarmRuleKind, type RiskLevel } from './labels';

type T = (key: string, options?: Record<string, unknown>) => string;

function SwitchControl({ value, onChange, disabled }: CustomControlProps) {
  return <Switch checked={!!value} onChange={(checked) => onChange?.(checked)} disabled={disabled} data-testid="rule-enabled" />;
}

const kindIs =
  (...kinds: AlarmRuleKind[]) =>
  (values: FormValues) =>
    !kinds.includes(values.kind as AlarmRuleKind);

/** A whole number in [min, max], the server's bounds, with its message. */
const between = (t: T, label: string, min: number, max: number): FormRule => ({
  validator: (_, value: unknown) =>
    value === undefined || value === null || value === '' || (Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max)
      ? Promise.resolve()
      : Promise.reject(new Error(t('risk:rules.range', { label, min, max }))),
});

/** Empty or 0 (none), else a whole number in [min, max]. */
const noneOrBetween = (t: T, label: string, min: number, max: number): FormRule => ({
  validator: (_, value: unknown) =>
    value === undefined || value === null || value === '' || Number(value) === 0 || (Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max)
      ? Promise.resolve()
      : Promise.reject(new Error(t('risk:rules.noneOrRange', { label, min, max }))),
});

const timeRule = (t: T): FormRule => ({
  validator: (_, value: unknown) => (value === undefined || value === '' || minuteOf(value) !== undefined ? Promise.resolve() : Promise.reject(new Error(t('risk:rules.timeFormat')))),
});

function numberField(t: T, name: string, label: string, min: number, max: number, hidden: FormField['hidden'], initialValue: number, unit?: string): FormField {
  return { kind: 'number', name, label, required: true, min, max, precision: 0, unit, hidden, initialValue, rules: [between(t, label, min, max)], span: 12 };
}

/** The form's fields; the kind cannot change once the rule exists. */
export function ruleFields(t: T, editing: boolean): FormField[] {
  const r = (key: string) => t(`risk:rules.${key}`);
  return [
    { kind: 'text', name: 'name', label: r('name'), required: true, maxLength: 50, span: 24 },
    {
      kind: 'select',
      name: 'kind',
      label: r('kind'),
      required: true,
      disabled: editing,
      options: RULE_KINDS.map((k) => ({ value: k, label: t(`risk:rules.kinds.${k}`) })),
      span: 12,
    },
    { kind: 'radio', name: 'level', label: r('level'), required: true, options: RISK_LEVELS.map((l) => ({ value: l, label: t(`risk:level.${l}`) })), initialValue: 'MEDIUM' satisfies RiskLevel, span: 12 },
    { kind: 'org', name: 'orgId', label: r('scope'), placeholder: r('allVehicles'), span: 12 },
    { kind: 'custom', name: 'enabled', label: r('enabled'), control: SwitchControl, initialValue: true, span: 12 },
    numberField(t, 'limitKmh', r('limitKmh'), 10, 200, kindIs('OVERSPEED'), 80, 'km/h'),
    numberField(t, 'maxDriveMinutes', r('maxDriveMinutes'), 30, 720, kindIs('FATIGUE'), 240),
    numberField(t, 'restMinutes', r('restMinutes'), 5, 240, kindIs('FATIGUE'), 20),
    {
      kind: 'number',
      name: 'dailyDriveMinutes',
      label: r('dailyDriveMinutes'),
      placeholder: r('noDailyLimit'),
      min: 0,
      max: 1440,
      precision: 0,
      hidden: kindIs('FATIGUE'),
      rules: [noneOrBetween(t, r('dailyDriveMinutes'), 60, 1440)],
      span: 12,
    },
    {
      kind: 'select',
      name: 'fenceIds',
      label: r('fenceIds'),
      placeholder: r('allFences'),
      multiple: true,
      hidden: kindIs('FENCE_WINDOW'),
      loadOptions: { key: ['risk', 'fence-options'], load: loadFenceOptions },
      rules: [{ type: 'array', max: 100, message: r('tooManyFences') }],
      span: 12,
    },
    {
      kind: 'select',
      name: 'fenceDirections',
      label: r('fenceDirections'),
      required: true,
      multiple: true,
      hidden: kindIs('FENCE_WINDOW'),
      options: FENCE_DIRECTIONS.map((d) => ({ value: d, label: r(`directions.${d}`) })),
      initialValue: ['enter'],
      span: 12,
    },
    { kind: 'text', name: 'windowStart', label: r('windowStart'), required: true, placeholder: '22:00', hidden: kindIs('NIGHT_DRIVING', 'FENCE_WINDOW'), rules: [timeRule(t)], initialValue: '22:00', span: 12 },
    {
      kind: 'text',
      name: 'windowEnd',
      label: r('windowEnd'),
      required: true,
      placeholder: '06:00',
      hidden: kindIs('NIGHT_DRIVING', 'FENCE_WINDOW'),
      initialValue: '06:00',
      rules: [
        timeRule(t),
        ({ getFieldValue }) => ({
          validator: (_, value: unknown) => {
            const end = minuteOf(value);
            return end !== undefined && end === minuteOf(getFieldValue('windowStart')) ? Promise.reject(new Error(r('sameWindow'))) : Promise.resolve();
          },
        }),
      ],
      span: 12,
    },
    numberField(t, 'socBelowPercent', r('socBelowPercent'), 1, 99, kindIs('LOW_SOC'), 20, '%'),
    numberField(t, 'minDurationSeconds', r('minDurationSeconds'), 0, 3600, kindIs('OVERSPEED', 'LOW_SOC', 'NIGHT_DRIVING'), 30),
    numberField(t, 'temperatureMinutes', r('temperatureMinutes'), 1, 1440, kindIs('TEMPERATURE'), 15),
    numberField(t, 'offlineHours', r('offlineHours'), 1, 720, kindIs('OFFLINE'), 24, r('hours')),
    {
      kind: 'select',
      name: 'terminalBits',
      label: r('terminalBits'),
      required: true,
      multiple: true,
      hidden: kindIs('TERMINAL'),
      options: TERMINAL_BITS.map((bit) => ({ value: bit, label: `${bit} ${t(`risk:bits.${bit}`)}` })),
      span: 24,
    },
    numberField(t, 'quietMinutes', r('quietMinutes'), 0, 1440, undefined, 0),
  ];
}

/** A stored rule as the form's record (windows as HH:mm, a temperature minimum in minutes, the fence directions as one choice). */
export function ruleRecord(rule: AlarmRule | undefined): FormValues | undefined {
  if (!rule) return undefined;
  return {
    ...rule,
    windowStart: minuteText(rule.windowStartMinute),
    windowEnd: minuteText(rule.windowEndMinute),
    dailyDriveMinutes: rule.dailyDriveMinutes || undefined,
    temperatureMinutes: rule.kind === 'TEMPERATURE' ? Math.round(rule.minDurationSeconds / 60) : undefined,
    fenceDirections: FENCE_DIRECTIONS.filter((d) => (d === 'enter' ? rule.fenceOnEnter : rule.fenceOnExit)),
  };
}

const num = (v: unknown) => (v === undefined || v === null || v === '' ? 0 : Number(v));

/** The submitted values as the API's body: the parameters the kind does not use are 0. */
export function ruleBody(values: FormValues): AlarmRuleForm {
  const directions = Array.isArray(values.fenceDirections) ? values.fenceDirections : [];
  return {
    name: String(values.name ?? '').trim(),
    kind: values.kind as AlarmRuleKind,
    level: values.level as RiskLevel,
    orgId: typeof values.orgId === 'string' ? values.orgId : '',
    enabled: values.enabled !== false,
    limitKmh: num(values.limitKmh),
    minDurationSeconds: values.kind === 'TEMPERATURE' ? num(values.temperatureMinutes) * 60 : num(values.minDurationSeconds),
    maxDriveMinutes: num(values.maxDriveMinutes),
    restMinutes: num(values.restMinutes),
    windowStartMinute: minuteOf(values.windowStart) ?? 0,
    windowEndMinute: minuteOf(values.windowEnd) ?? 0,
    socBelowPercent: num(values.socBelowPercent),
    terminalBits: Array.isArray(values.terminalBits) ? values.terminalBits.map(Number) : [],
    dailyDriveMinutes: num(values.dailyDriveMinutes),
    fenceIds: Array.isArray(values.fenceIds) ? values.fenceIds.map(String) : [],
    fenceOnEnter: directions.includes('enter'),
    fenceOnExit: directions.includes('exit'),
    offlineHours: num(values.offlineHours),
    quietMinutes: num(values.quietMinutes),
  };
}

/** A rule's parameters in one line (the rules table). */
export function ruleParams(t: T, rule: AlarmRule): string {
  switch (rule.kind) {
    case 'OVERSPEED':
      return t('risk:rules.describe.OVERSPEED', { limit: rule.limitKmh, min: rule.minDurationSeconds });
    case 'FATIGUE':
      return rule.dailyDriveMinutes
        ? t('risk:rules.describe.FATIGUE_DAILY', { drive: rule.maxDriveMinutes, rest: rule.restMinutes, daily: rule.dailyDriveMinutes })
        : t('risk:rules.describe.FATIGUE', { drive: rule.maxDriveMinutes, rest: rule.restMinutes });
    case 'NIGHT_DRIVING':
      return t('risk:rules.describe.NIGHT_DRIVING', { from: minuteText(rule.windowStartMinute), to: minuteText(rule.windowEndMinute) });
    case 'LOW_SOC':
      return t('risk:rules.describe.LOW_SOC', { soc: rule.socBelowPercent, min: rule.minDurationSeconds });
    case 'TERMINAL':
      return t('risk:rules.describe.TERMINAL', { bits: rule.terminalBits.map((b) => t(`risk:bits.${b}`)).join('、') });
    case 'FENCE_WINDOW':
      return t('risk:rules.describe.FENCE_WINDOW', {
        from: minuteText(rule.windowStartMinute),
        to: minuteText(rule.windowEndMinute),
        directions: FENCE_DIRECTIONS.filter((d) => (d === 'enter' ? rule.fenceOnEnter : rule.fenceOnExit))
          .map((d) => t(`risk:rules.directions.${d}`))
          .join('、'),
        fences: rule.fenceIds.length ? t('risk:rules.someFences', { n: rule.fenceIds.length }) : t('risk:rules.allFences'),
      });
    case 'TEMPERATURE':
      return t('risk:rules.describe.TEMPERATURE', { min: Math.round(rule.minDurationSeconds / 60) });
    case 'OFFLINE':
      return t('risk:rules.describe.OFFLINE', { hours: rule.offlineHours });
    default:
      return '';
  }
}
