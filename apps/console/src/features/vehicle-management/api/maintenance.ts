/** Maintenance reminders and their service plans (carMaintenance): lists, detail, complete, plan CRUD, export. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { MAINTENANCE_KINDS, REMINDER_STATUSES } from '../components/labels';

export type Reminder = components['schemas']['MaintenanceReminderBody'];
export type ReminderDetail =
  components['schemas']['MaintenanceReminderDetailBody'];
export type CompleteForm = components['schemas']['CompleteReminderForm'];
export type Plan = components['schemas']['MaintenancePlanBody'];
export type PlanForm = components['schemas']['MaintenancePlanForm'];
export type ReminderQuery = NonNullable<
  operations['list_reminders']['parameters']['query']
>;
export type PlanQuery = NonNullable<
  operations['list_plans']['parameters']['query']
>;

export const MAINTENANCE_KEY = ['vehicle-management', 'maintenance'] as const;
export const REMINDERS_KEY = [...MAINTENANCE_KEY, 'reminders'] as const;
export const PLANS_KEY = [...MAINTENANCE_KEY, 'plans'] as const;

const text = (filters: ListFilters, key: string) =>
  oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters (the export takes the same, its page ignored). */
export function reminderQuery(
  filters: ListFilters,
  page: number,
  size: number,
): ReminderQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    planIds: manyOf(filters, 'planIds'),
    kinds: codesOf(manyOf(filters, 'kinds'), MAINTENANCE_KINDS),
    statuses: codesOf(manyOf(filters, 'statuses'), REMINDER_STATUSES),
    dueTimeStart: text(filters, 'dueTimeStart'),
    dueTimeEnd: text(filters, 'dueTimeEnd'),
  };
}

export const listReminders = (query: ReminderQuery) =>
  api.get('/api/v1/maintenance/reminders', { params: { query } });

export const exportReminders = (query: ReminderQuery, options: CallOptions) =>
  api.post('/api/v1/maintenance/reminders/export', {
    ...options,
    params: { query },
  });

export function useReminderDetail(id: string | undefined) {
  return useQuery({
    queryKey: [...REMINDERS_KEY, 'detail', id ?? ''],
    queryFn: () =>
      api.get('/api/v1/maintenance/reminders/{reminderId}', {
        params: { path: { reminderId: id ?? '' } },
      }),
    enabled: !!id,
  });
}

/** Completing changes the list, the detail and the plans' counts: all are fetched again. */
export function useCompleteReminder() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: CompleteForm }) =>
      api.post('/api/v1/maintenance/reminders/{reminderId}/complete', {
        params: { path: { reminderId: id } },
        body,
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: MAINTENANCE_KEY }),
  });
}

export const listPlans = (query: PlanQuery) =>
  api.get('/api/v1/maintenance/plans', { params: { query } });

/** Every plan (the filter's options and the plans drawer): at most 100. */
export function usePlans() {
  return useQuery({
    queryKey: [...PLANS_KEY, 'all'],
    queryFn: () => listPlans({ page: 1, size: 100 }),
  });
}

/** A saved or deleted plan opens, moves or closes reminders: the whole subject is fetched again. */
export function useSavePlan() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: PlanForm }) =>
      id
        ? api.put('/api/v1/maintenance/plans/{planId}', {
            params: { path: { planId: id } },
            body,
          })
        : api.post('/api/v1/maintenance/plans', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: MAINTENANCE_KEY }),
  });
}

export function useDeletePlan() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.delete('/api/v1/maintenance/plans/{planId}', {
        params: { path: { planId: id } },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: MAINTENANCE_KEY }),
  });
}
