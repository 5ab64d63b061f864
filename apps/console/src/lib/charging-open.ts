/**
 * Opening the charging service (console spec §2 energy menu, §4, §8): the enterprise's
 * state (not opened → applying → opened) and the application. Shared by the
 * navbar's introduction popup and the /chargeIntroduce page.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type ApiData } from './api-client';
import { meQueryOptions } from './auth';

export type ChargingOpenStatus = ApiData<'/api/v1/charging/open-status', 'get'>;
export type ChargingOpenState = NonNullable<ChargingOpenStatus['state']>;

/** The energy menu's permission, which the opening calls need. */
export const CHARGING_MENU_PERMISSION = 'oss:pc:energy:management';

/** Spec §9: the apply button's debounce. */
export const APPLY_DEBOUNCE_MS = 300;

export const CHARGING_OPEN_STATUS_KEY = ['charging', 'open-status'] as const;

/** The enterprise's state; `enabled` lets the popup ask only when it opens. */
export function useChargingOpenStatus(enabled = true) {
  return useQuery({
    queryKey: CHARGING_OPEN_STATUS_KEY,
    queryFn: () => api.get('/api/v1/charging/open-status', { silent: true }),
    enabled,
    staleTime: 30_000,
  });
}

/**
 * Applies to open charging. On success the state reads 申请中 at once (a pending
 * application refuses another), and the user (whose flags say whether the
 * full energy menu shows) is asked again.
 */
export function useApplyChargingOpen() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('/api/v1/charging/open-applications', { body: { remark: '' } }),
    onSuccess: (application) => {
      client.setQueryData<ChargingOpenStatus>(CHARGING_OPEN_STATUS_KEY, (old) => ({
        blacklisted: old?.blacklisted ?? false,
        state: 'APPLYING',
        latestApplication: application,
      }));
      void client.invalidateQueries({ queryKey: CHARGING_OPEN_STATUS_KEY });
      void client.invalidateQueries({ queryKey: meQueryOptions().queryKey });
    },
  });
}
