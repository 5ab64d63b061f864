import { minuteOf } from './labels';
import { ruleBody, ruleFields, ruleParams, ruleRecord } from './rule-form';
import type { AlarmRule } from '../api/rules';

const t = (key: string, options?: Record<string, unknown>) => `${key}${options ? JSON.stringify(options) : ''}`;

const night: AlarmRule = {
  id: 'r1', name: '夜间', kind: 'NIGHT_DRIVING', level: 'LOW', orgId: 'o1', orgName: '华南', enabled: false,
  limitKmh: 0, minDurationSeconds: 60, maxDriveMinutes: 0, restMinutes: 0, windowStartMinute: 1320, windowEndMinute: 370,
  socBelowPercent: 0, terminalBits: [], quietMinutes: 15, createdBy: '', createTime: '', updatedBy: '', updateTime: '',
  dailyDriveMinutes: 0, fenceIds: [], fenceOnEnter: false, fenceOnExit: false, offlineHours: 0,
};

/** Runs a field's own validators on `value` (with `values` as the rest of the form); answers the first message. */
async function check(name: string, value: unknown, values: Record<string, unknown> = {}): Promise<string | undefined> {
  const field = ruleFields(t, false).find((f) => f.name === name);
  for (const rule of field?.rules ?? []) {
    const r = typeof rule === 'function' ? rule({ getFieldValue: (k: string) => values[k] } as never) : rule;
    if (!r.validator) continue;
    try {
      await (r.validator as (rule: unknown, value: unknown) => Promise<void>)({}, value);
    } catch (e) {
      return (e as Error).message;
    }
  }
  return undefined;
}

describe('the alarm rule form', () => {
  it('reads times of day as HH:mm only', () => {
    expect(minuteOf('22:00')).toBe(1320);
    expect(minuteOf(' 06:10 ')).toBe(370);
    expect(minuteOf('24:00')).toBeUndefined();
    expect(minuteOf('6:10')).toBeUndefined();
    expect(minuteOf(undefined)).toBeUndefined();
  });

  it('edits the night window as HH:mm and sends it back as minutes, unset parameters as 0', () => {
    const record = ruleRecord(night);
    expect(record).toMatchObject({ windowStart: '22:00', windowEnd: '06:10' });
    const body = ruleBody({ ...record, limitKmh: undefined, terminalBits: undefined, enabled: false });
    expect(body).toMatchObject({ kind: 'NIGHT_DRIVING', windowStartMinute: 1320, windowEndMinute: 370, minDurationSeconds: 60, limitKmh: 0, terminalBits: [], enabled: false, orgId: 'o1', quietMinutes: 15 });
    expect(body).not.toHaveProperty('id');
  });

  it('sends a fence-window rule with its fences, directions and window, and reads it back', () => {
    const body = ruleBody({ name: ' 夜间进出 ', kind: 'FENCE_WINDOW', level: 'HIGH', fenceIds: ['f1', 'f2'], fenceDirections: ['enter', 'exit'], windowStart: '23:00', windowEnd: '05:30' });
    expect(body).toMatchObject({ name: '夜间进出', kind: 'FENCE_WINDOW', fenceIds: ['f1', 'f2'], fenceOnEnter: true, fenceOnExit: true, windowStartMinute: 1380, windowEndMinute: 330, offlineHours: 0, dailyDriveMinutes: 0 });
    const stored: AlarmRule = { ...night, kind: 'FENCE_WINDOW', fenceIds: ['f1'], fenceOnEnter: false, fenceOnExit: true };
    expect(ruleRecord(stored)).toMatchObject({ fenceDirections: ['exit'], windowStart: '22:00' });
    expect(ruleBody({ kind: 'FENCE_WINDOW', fenceDirections: ['enter'] })).toMatchObject({ fenceIds: [], fenceOnEnter: true, fenceOnExit: false });
  });

  it('keeps a temperature minimum in minutes on the form and in seconds on the wire', () => {
    expect(ruleBody({ kind: 'TEMPERATURE', temperatureMinutes: 15, minDurationSeconds: 30 })).toMatchObject({ minDurationSeconds: 900 });
    expect(ruleRecord({ ...night, kind: 'TEMPERATURE', minDurationSeconds: 1200 })).toMatchObject({ temperatureMinutes: 20 });
    expect(ruleBody({ kind: 'OFFLINE', offlineHours: 24 })).toMatchObject({ kind: 'OFFLINE', offlineHours: 24, minDurationSeconds: 0 });
    expect(ruleBody({ kind: 'FATIGUE', maxDriveMinutes: 240, restMinutes: 20, dailyDriveMinutes: 480 })).toMatchObject({ dailyDriveMinutes: 480 });
    expect(ruleRecord({ ...night, kind: 'FATIGUE', dailyDriveMinutes: 0 })).toMatchObject({ dailyDriveMinutes: undefined });
  });

  it('checks the new parameters in Chinese ranges before sending', async () => {
    expect(await check('dailyDriveMinutes', undefined)).toBeUndefined();
    expect(await check('dailyDriveMinutes', 0)).toBeUndefined();
    expect(await check('dailyDriveMinutes', 480)).toBeUndefined();
    expect(await check('dailyDriveMinutes', 30)).toBe('risk:rules.noneOrRange{"label":"risk:rules.dailyDriveMinutes","min":60,"max":1440}');
    expect(await check('offlineHours', 0)).toBe('risk:rules.range{"label":"risk:rules.offlineHours","min":1,"max":720}');
    expect(await check('offlineHours', 24)).toBeUndefined();
    expect(await check('temperatureMinutes', 2000)).toBe('risk:rules.range{"label":"risk:rules.temperatureMinutes","min":1,"max":1440}');
    expect(await check('windowEnd', '22:00', { windowStart: '22:00' })).toBe('risk:rules.sameWindow');
    const fields = ruleFields(t, false);
    const shown = (kind: string) => fields.filter((f) => !f.hidden?.({ kind })).map((f) => f.name);
    expect(shown('FENCE_WINDOW')).toEqual(expect.arrayContaining(['fenceIds', 'fenceDirections', 'windowStart', 'windowEnd']));
    expect(shown('FENCE_WINDOW')).not.toContain('minDurationSeconds');
    expect(shown('TEMPERATURE')).toContain('temperatureMinutes');
    expect(shown('OFFLINE')).toContain('offlineHours');
    expect(shown('FATIGUE')).toContain('dailyDriveMinutes');
    expect(shown('OVERSPEED')).not.toContain('offlineHours');
  });

  it('describes each kind by its own parameters', () => {
    expect(ruleParams(t, night)).toBe('risk:rules.describe.NIGHT_DRIVING{"from":"22:00","to":"06:10"}');
    expect(ruleParams(t, { ...night, kind: 'TERMINAL', terminalBits: [0, 29] })).toBe('risk:rules.describe.TERMINAL{"bits":"risk:bits.0、risk:bits.29"}');
    expect(ruleParams(t, { ...night, kind: 'OFFLINE', offlineHours: 24 })).toBe('risk:rules.describe.OFFLINE{"hours":24}');
    expect(ruleParams(t, { ...night, kind: 'TEMPERATURE', minDurationSeconds: 900 })).toBe('risk:rules.describe.TEMPERATURE{"min":15}');
    expect(ruleParams(t, { ...night, kind: 'FATIGUE', maxDriveMinutes: 240, restMinutes: 20, dailyDriveMinutes: 480 })).toBe(
      'risk:rules.describe.FATIGUE_DAILY{"drive":240,"rest":20,"daily":480}',
    );
    expect(ruleParams(t, { ...night, kind: 'FENCE_WINDOW', fenceOnEnter: true })).toBe(
      'risk:rules.describe.FENCE_WINDOW{"from":"22:00","to":"06:10","directions":"risk:rules.directions.enter","fences":"risk:rules.allFences"}',
    );
  });
});
