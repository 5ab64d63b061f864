import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, paths } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { codesOf } from '../components/status';
import { timeFilter } from '../components/query';

export type LockVehicle = components['schemas']['LockVehicleBody'];
export type LockCommand = components['schemas']['LockCommandBody'];
export type LockAction = NonNullable<LockCommand['action']>;
export type LockCommandState = NonNullable<LockCommand['state']>;
export type LockState = NonNullable<LockVehicle['lockState']>;
export type LockUsageType = NonNullable<LockVehicle['usageType']>;
export type LockVehicleQuery = NonNullable<paths['/api/v1/lock/vehicles']['get']['parameters']['query']>;
export type LockCommandQuery = NonNullable<paths['/api/v1/lock/commands']['get']['parameters']['query']>;

export const LOCK_USAGE_TYPES: readonly LockUsageType[] = ['RENT', 'RENT_TO_OWN'];
export const LOCK_STATES: readonly LockState[] = ['locked', 'unlocked', 'unknown'];
export const LOCK_ACTIONS: readonly LockAction[] = ['lock', 'unlock'];
export const COMMAND_STATES: readonly LockCommandState[] = ['queued', 'sent', 'acknowledged', 'succeeded', 'failed', 'timedOut', 'expired'];
/** States after which a command changes no more: polling stops. */
export const TERMINAL_STATES: readonly LockCommandState[] = ['succeeded', 'failed', 'timedOut', 'expired'];
export const isTerminal = (state: LockCommandState | null | undefined) => !state || TERMINAL_STATES.includes(state);

/** While a command is on its way, its state is polled this often. */
export const COMMAND_POLL_MS = 2000;

export const LOCK_KEY = ['lock'] as const;
export const LOCK_VEHICLES_KEY = [...LOCK_KEY, 'vehicles'] as const;
export const LOCK_COMMANDS_KEY = [...LOCK_KEY, 'commands'] as const;

export function lockVehicleQuery(filters: ListFilters, page: number, size: number): LockVehicleQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    orgIds: manyOf(filters, 'orgIds'),
    usageTypes: codesOf(manyOf(filters, 'usageTypes'), LOCK_USAGE_TYPES),
    overdueOnly: oneOf(filters, 'overdueOnly') === 'true' ? true : undefined,
  };
}

export const listLockVehicles = (query: LockVehicleQuery) => api.get('/api/v1/lock/vehicles', { params: { query } });

/** Commands of one vehicle (`vehicleId`), or of every vehicle in reach. */
export function lockCommandQuery(vehicleId: string | undefined) {
  return (filters: ListFilters, page: number, size: number): LockCommandQuery => ({
    page,
    size,
    vehicleId,
    plateNumbers: vehicleId ? undefined : manyOf(filters, 'plateNumbers'),
    actions: codesOf(manyOf(filters, 'actions'), LOCK_ACTIONS),
    states: codesOf(manyOf(filters, 'states'), COMMAND_STATES),
    from: timeFilter(filters, 'from'),
    to: timeFilter(filters, 'to'),
  });
}

export const listLockCommands = (query: LockCommandQuery) => api.get('/api/v1/lock/commands', { params: { query } });

/** Poll a list while any command in it has not reached a terminal state. */
export const pollWhileRunning = (commands: readonly (LockCommand | null | undefined)[]) => (commands.some((c) => c && !isTerminal(c.state)) ? COMMAND_POLL_MS : false);

export interface SendLockCommand {
  vehicleId: string;
  action: LockAction;
  reason: string;
  /** One per opened dialog: a double click or a retry sends one command. */
  idempotencyKey: string;
}

export function useSendLockCommand() {
  const client = useQueryClient();
  return useMutation({
    // Silent: the dialog shows the refusal (an interlock's reason) itself.
    mutationFn: ({ vehicleId, action, reason, idempotencyKey }: SendLockCommand) =>
      action === 'lock'
        ? api.post('/api/v1/lock/vehicles/{vehicleId}/lock', { silent: true, params: { path: { vehicleId } }, body: { reason }, idempotencyKey })
        : api.post('/api/v1/lock/vehicles/{vehicleId}/unlock', { silent: true, params: { path: { vehicleId } }, body: { reason }, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: LOCK_KEY }),
  });
}
