import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { BINDING_KINDS, codesOf } from '../components/vehicle-labels';
import { VEHICLES_KEY } from './vehicles';

export type VehicleBinding = components['schemas']['BindingBody'];
export type BindingQuery = NonNullable<operations['list_bindings']['parameters']['query']>;

export const BINDINGS_KEY = [...VEHICLES_KEY, 'bindings'] as const;

/** URL filters to the binding log's query. */
export function bindingQuery(filters: ListFilters, page: number, size: number): BindingQuery {
  const active = oneOf(filters, 'active');
  return {
    page,
    size,
    plate: manyOf(filters, 'plate'),
    vin: manyOf(filters, 'vin'),
    orgId: manyOf(filters, 'orgId'),
    kind: codesOf(manyOf(filters, 'kind'), BINDING_KINDS),
    targetId: oneOf(filters, 'targetId') || undefined,
    vehicleId: oneOf(filters, 'vehicleId') || undefined,
    active: active === 'true' ? true : active === 'false' ? false : undefined,
    bindTimeStart: oneOf(filters, 'bindTimeStart') || undefined,
    bindTimeEnd: oneOf(filters, 'bindTimeEnd') || undefined,
  };
}

export const listBindings = (query: BindingQuery) => api.get('/api/v1/vehicle-bindings', { params: { query } });


/** Bind a terminal (ends the vehicle's active terminal binding) or unbind it; refreshes the vehicle and the log. */
export function useBindTerminal(vehicleId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { terminalId: string; terminalSim: string }) =>
      api.post('/api/v1/vehicles/{id}/terminal/bind', { params: { path: { id: vehicleId } }, body: { ...body, bindTime: '', remark: '' } }),
    onSuccess: () => client.invalidateQueries({ queryKey: VEHICLES_KEY }),
  });
}

export function useUnbindTerminal(vehicleId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('/api/v1/vehicles/{id}/terminal/unbind', { params: { path: { id: vehicleId } }, body: { remark: '' } }),
    onSuccess: () => client.invalidateQueries({ queryKey: VEHICLES_KEY }),
  });
}
