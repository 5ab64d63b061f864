import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, paths } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { timeFilter } from '../components/query';
import { codesOf } from '../components/status';

type Schemas = components['schemas'];
export type Geofence = Schemas['GeofenceBody'];
export type GeofenceInput = Schemas['GeofenceInputBody'];
export type GeofenceShape = NonNullable<Geofence['shape']>;
export type GeofencePurpose = NonNullable<Geofence['purpose']>;
export type ActiveWindow = Geofence['activeWindows'][number];
export type GeofenceCrossing = Schemas['GeofenceCrossingBody'];
export type CrossingDirection = NonNullable<GeofenceCrossing['direction']>;
export type SignIn = Schemas['SignInBody'];
export type GeofenceAlarm = Schemas['GeofenceAlarmBody'];
export type GeofenceAlarmKind = NonNullable<GeofenceAlarm['kind']>;
export type GeofenceDashboard = Schemas['GeofenceDashboardBody'];
export type GeofenceQuery = NonNullable<paths['/api/v1/geofences']['get']['parameters']['query']>;
export type CrossingQuery = NonNullable<paths['/api/v1/geofence-crossings']['get']['parameters']['query']>;
export type SignInQuery = NonNullable<paths['/api/v1/sign-ins']['get']['parameters']['query']>;
export type AlarmQuery = NonNullable<paths['/api/v1/geofence-alarms']['get']['parameters']['query']>;

export const SHAPES: readonly GeofenceShape[] = ['circle', 'polygon', 'corridor'];
export const PURPOSES: readonly GeofencePurpose[] = ['area', 'signIn'];
export const DIRECTIONS: readonly CrossingDirection[] = ['enter', 'exit'];
export const ALARM_KINDS: readonly GeofenceAlarmKind[] = ['enter', 'exit', 'speeding', 'overstay'];

export const FENCES_KEY = ['geofences'] as const;
export const FENCE_LIST_KEY = [...FENCES_KEY, 'list'] as const;
export const fenceKey = (id: string) => [...FENCES_KEY, 'detail', id] as const;
export const CROSSINGS_KEY = [...FENCES_KEY, 'crossings'] as const;
export const SIGN_INS_KEY = [...FENCES_KEY, 'sign-ins'] as const;
export const ALARMS_KEY = [...FENCES_KEY, 'alarms'] as const;

const text = (filters: ListFilters, key: string) => oneOf(filters, key) || undefined;

/** Fence list filters; `purpose` fixes the purpose (sign-in points page). */
export function fenceQuery(purpose?: GeofencePurpose) {
  return (filters: ListFilters, page: number, size: number): GeofenceQuery => {
    const enabled = oneOf(filters, 'enabled');
    return {
      page,
      size,
      name: text(filters, 'name'),
      shapes: codesOf(manyOf(filters, 'shapes'), SHAPES),
      purposes: purpose ? [purpose] : codesOf(manyOf(filters, 'purposes'), PURPOSES),
      enabled: enabled === 'true' ? true : enabled === 'false' ? false : undefined,
    };
  };
}

export const listFences = (query: GeofenceQuery) => api.get('/api/v1/geofences', { params: { query } });

export function crossingQuery(filters: ListFilters, page: number, size: number): CrossingQuery {
  return {
    page,
    size,
    geofenceIds: manyOf(filters, 'geofenceIds'),
    plateNumbers: manyOf(filters, 'plateNumbers'),
    directions: codesOf(manyOf(filters, 'directions'), DIRECTIONS),
    from: timeFilter(filters, 'from'),
    to: timeFilter(filters, 'to'),
  };
}

export const listCrossings = (query: CrossingQuery) => api.get('/api/v1/geofence-crossings', { params: { query } });

export function signInQuery(filters: ListFilters, page: number, size: number): SignInQuery {
  return { page, size, geofenceIds: manyOf(filters, 'geofenceIds'), plateNumbers: manyOf(filters, 'plateNumbers'), from: timeFilter(filters, 'from'), to: timeFilter(filters, 'to') };
}

export const listSignIns = (query: SignInQuery) => api.get('/api/v1/sign-ins', { params: { query } });

export function alarmQuery(filters: ListFilters, page: number, size: number): AlarmQuery {
  return {
    page,
    size,
    geofenceIds: manyOf(filters, 'geofenceIds'),
    plateNumbers: manyOf(filters, 'plateNumbers'),
    kinds: codesOf(manyOf(filters, 'kinds'), ALARM_KINDS),
    from: timeFilter(filters, 'from'),
    to: timeFilter(filters, 'to'),
  };
}

export const listAlarms = (query: AlarmQuery) => api.get('/api/v1/geofence-alarms', { params: { query } });

export function useFence(id: string | undefined) {
  return useQuery({ queryKey: fenceKey(id ?? ''), queryFn: () => api.get('/api/v1/geofences/{id}', { params: { path: { id: id ?? '' } } }), enabled: !!id });
}

/** Who is inside the fence now; refreshed every 30 s while shown. */
export function useFenceInside(id: string | undefined) {
  return useQuery({
    queryKey: [...fenceKey(id ?? ''), 'inside'],
    queryFn: () => api.get('/api/v1/geofences/{id}/inside', { params: { path: { id: id ?? '' } } }),
    enabled: !!id,
    refetchInterval: 30_000,
  });
}

/** Fences as filter options (by name), at most 100 of the newest. */
export function useFenceOptions(purpose?: GeofencePurpose) {
  return useQuery({
    queryKey: [...FENCE_LIST_KEY, 'options', purpose ?? 'all'],
    queryFn: async () => (await listFences({ page: 1, size: 100, purposes: purpose ? [purpose] : undefined })).list.map((f) => ({ value: f.id, label: f.name })),
    staleTime: 30_000,
    placeholderData: keepPreviousData,
  });
}

/** The dashboard of the range; `orgIds`: only those organisations' fences (with their sub-organisations'). */
export function useDashboard(from: string, to: string, orgIds: string[] = []) {
  return useQuery({
    queryKey: [...FENCES_KEY, 'dashboard', from, to, orgIds],
    queryFn: () => api.get('/api/v1/geofences/dashboard', { params: { query: { from, to, orgIds: orgIds.length ? orgIds : undefined } } }),
  });
}

/** Create with an Idempotency-Key (one per opened form): a double submit creates one fence. */
export function useCreateFence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: GeofenceInput; idempotencyKey: string }) => api.post('/api/v1/geofences', { body, idempotencyKey }),
    onSuccess: () => client.invalidateQueries({ queryKey: FENCES_KEY }),
  });
}

export function useUpdateFence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: GeofenceInput }) => api.put('/api/v1/geofences/{id}', { params: { path: { id } }, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: FENCES_KEY }),
  });
}

export function useDeleteFence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/geofences/{id}', { params: { path: { id } } }),
    onSuccess: () => client.invalidateQueries({ queryKey: FENCES_KEY }),
  });
}

/** What a fence read adds to its input (the edge answers them; an edit does not send them). */
const READ_ONLY: ReadonlySet<string> = new Set<keyof Geofence>(['id', 'orgName', 'insideCount', 'createdAt', 'updatedAt']);

/** The writable part of a fence (enable/disable sends the whole fence back with `enabled` flipped). */
export function inputOf(f: Geofence): GeofenceInput {
  return Object.fromEntries(Object.entries(f).filter(([key]) => !READ_ONLY.has(key))) as GeofenceInput;
}
