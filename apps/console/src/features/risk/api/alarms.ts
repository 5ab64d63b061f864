/** Risk alarms (riskAlarmRecord): the list, an alarm's detail and the workflow. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { DATE_FORMAT } from '@/lib/format';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { ALARM_STATUSES, ALARM_TYPES, RISK_LEVELS } from '../components/labels';
import { codesOf } from '@/lib/codes';

export type RiskAlarm = components['schemas']['RiskAlarmBody'];
export type RiskAlarmDetail = components['schemas']['RiskAlarmDetailBody'];
export type AlarmActivity = components['schemas']['AlarmActivityBody'];
export type AlarmTrackPoint = components['schemas']['AlarmTrackPointBody'];
export type HandleAlarmsForm = components['schemas']['HandleRiskAlarmsForm'];
export type AssignAlarmsForm = components['schemas']['AssignRiskAlarmsForm'];
export type CommentAlarmForm = components['schemas']['CommentRiskAlarmForm'];
export type AlarmQuery = NonNullable<operations['list_risk_alarms']['parameters']['query']>;

export const ALARMS_KEY = ['risk', 'alarms'] as const;

/** Longest alarm-time range the list takes. */
export const MAX_RANGE_DAYS = 92;

/** The list opens on the last 7 days (it needs a range). */
export function defaultRange(today = dayjs()): [string, string] {
  return [today.subtract(6, 'day').format(DATE_FORMAT), today.format(DATE_FORMAT)];
}

/** Why a range is refused ('required', 'tooLong'), or undefined when it is fine. */
export function rangeProblem(start: string | undefined, end: string | undefined): 'required' | 'tooLong' | undefined {
  if (!start || !end) return 'required';
  if (dayjs(end).startOf('day').diff(dayjs(start).startOf('day'), 'day') + 1 > MAX_RANGE_DAYS) return 'tooLong';
  return undefined;
}

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters. */
export function alarmQuery(filters: ListFilters, page: number, size: number): AlarmQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    alarmTypes: codesOf(manyOf(filters, 'alarmTypes'), ALARM_TYPES),
    levels: codesOf(manyOf(filters, 'levels'), RISK_LEVELS),
    statuses: codesOf(manyOf(filters, 'statuses'), ALARM_STATUSES),
    assigneeId: text(filters, 'assigneeId'),
    alarmTimeStart: text(filters, 'alarmTimeStart'),
    alarmTimeEnd: text(filters, 'alarmTimeEnd'),
  };
}

export const listAlarms = (query: AlarmQuery) => api.get('/api/v1/risk/alarms', { params: { query } });

export function useAlarmDetail(id: string | undefined) {
  return useQuery({
    queryKey: [...ALARMS_KEY, 'detail', id ?? ''],
    queryFn: () => api.get('/api/v1/risk/alarms/{alarmId}', { params: { path: { alarmId: id ?? '' } } }),
    enabled: !!id,
  });
}

/** A workflow move changes rows of the list and the detail: both are fetched again. */
function useAlarmMutation<V, R>(send: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => client.invalidateQueries({ queryKey: ALARMS_KEY }) });
}

export const useHandleAlarms = () => useAlarmMutation((body: HandleAlarmsForm) => api.post('/api/v1/risk/alarms/handle', { body }));
export const useAssignAlarms = () => useAlarmMutation((body: AssignAlarmsForm) => api.post('/api/v1/risk/alarms/assign', { body }));
export const useCommentAlarm = () =>
  useAlarmMutation(({ alarmId, ...body }: CommentAlarmForm & { alarmId: string }) => api.post('/api/v1/risk/alarms/{alarmId}/comments', { params: { path: { alarmId } }, body }));

/** Enabled members whose name contains `keyword` (the assignee picker). */
export async function searchMembers(keyword: string): Promise<{ value: string; label: string }[]> {
  const answer = await api.get('/api/v1/system/users', { params: { query: { page: 1, size: 50, name: keyword || undefined, status: 1 } }, silent: true });
  return answer.list.map((u) => ({ value: u.id, label: u.orgName ? `${u.name}（${u.orgName}）` : u.name }));
}
