/** Alarm rules (the settings of riskAlarmRecord): listed with as:alarm, changed with as:alarm:rule. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';

export type AlarmRule = components['schemas']['AlarmRuleBody'];
export type AlarmRuleForm = components['schemas']['AlarmRuleForm'];

export const RULES_KEY = ['risk', 'alarm-rules'] as const;

export function useAlarmRules(enabled = true) {
  return useQuery({ queryKey: RULES_KEY, queryFn: () => api.get('/api/v1/risk/alarm-rules'), enabled });
}

function useRuleMutation<V, R>(send: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => client.invalidateQueries({ queryKey: RULES_KEY }) });
}

export const useCreateRule = () => useRuleMutation((body: AlarmRuleForm) => api.post('/api/v1/risk/alarm-rules', { body }));
export const useUpdateRule = () => useRuleMutation(({ id, ...body }: AlarmRuleForm & { id: string }) => api.put('/api/v1/risk/alarm-rules/{ruleId}', { params: { path: { ruleId: id } }, body }));
export const useDeleteRule = () => useRuleMutation((id: string) => api.delete('/api/v1/risk/alarm-rules/{ruleId}', { params: { path: { ruleId: id } } }));

/** A stored rule as the form's body (to flip `enabled` without the dialog). */
export function ruleForm(rule: AlarmRule): AlarmRuleForm {
  return {
    name: rule.name,
    kind: rule.kind,
    level: rule.level,
    orgId: rule.orgId,
    enabled: rule.enabled,
    limitKmh: rule.limitKmh,
    minDurationSeconds: rule.minDurationSeconds,
    maxDriveMinutes: rule.maxDriveMinutes,
    restMinutes: rule.restMinutes,
    windowStartMinute: rule.windowStartMinute,
    windowEndMinute: rule.windowEndMinute,
    socBelowPercent: rule.socBelowPercent,
    terminalBits: rule.terminalBits,
    dailyDriveMinutes: rule.dailyDriveMinutes,
    fenceIds: rule.fenceIds,
    fenceOnEnter: rule.fenceOnEnter,
    fenceOnExit: rule.fenceOnExit,
    offlineHours: rule.offlineHours,
    quietMinutes: rule.quietMinutes,
  };
}
