import { minuteOf } from './labels';
import { ruleBody, ruleParams, ruleRecord } from './rule-form';
import type { AlarmRule } from '../api/rules';

const t = (key: string, options?: Record<string, unknown>) => `${key}${options ? JSON.stringify(options) : ''}`;

const night: AlarmRule = {
  id: 'r1', name: '夜间', kind: 'NIGHT_DRIVING', level: 'LOW', orgId: 'o1', orgName: '华南', enabled: false,
  limitKmh: 0, minDurationSeconds: 60, maxDriveMinutes: 0, restMinutes: 0, windowStartMinute: 1320, windowEndMinute: 370,
  socBelowPercent: 0, terminalBits: [], quietMinutes: 15, createdBy: '', createTime: '', updatedBy: '', updateTime: '',
};

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

  it('describes each kind by its own parameters', () => {
    expect(ruleParams(t, night)).toBe('risk:rules.describe.NIGHT_DRIVING{"from":"22:00","to":"06:10"}');
    expect(ruleParams(t, { ...night, kind: 'TERMINAL', terminalBits: [0, 29] })).toBe('risk:rules.describe.TERMINAL{"bits":"risk:bits.0、risk:bits.29"}');
  });
});
