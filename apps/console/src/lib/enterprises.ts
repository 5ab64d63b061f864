/**
 * The enterprises a person belongs to and the choice of one (console spec §4): used by
 * /selectNet after a personal sign-in and by the enterprise switch in the user menu.
 */
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api, type ApiData } from './api-client';
import { saveSession } from './session';

export type EnterpriseChoice = ApiData<'/api/v1/auth/enterprises', 'get'>[number];
export type EnterpriseSession = ApiData<'/api/v1/auth/select-enterprise', 'post'>;

export const getEnterprises = () => api.get('/api/v1/auth/enterprises');

export const enterprisesQueryOptions = () =>
  queryOptions({ queryKey: ['auth', 'enterprises'], queryFn: getEnterprises, staleTime: 0, gcTime: 0 });

export function useEnterprises(enabled = true) {
  return useQuery({ ...enterprisesQueryOptions(), enabled });
}

/** Asks for an enterprise session and stores it as the browser's enterprise token. */
export async function selectEnterprise(enterpriseId: string): Promise<EnterpriseSession> {
  const session = await api.post('/api/v1/auth/select-enterprise', { body: { enterpriseId } });
  saveSession(session.token, 'enterprise');
  return session;
}

export function useSelectEnterprise(onSuccess: (session: EnterpriseSession) => void) {
  return useMutation({ mutationFn: selectEnterprise, onSuccess });
}
