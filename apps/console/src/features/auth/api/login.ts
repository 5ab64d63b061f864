import { useMutation } from '@tanstack/react-query';
import { api, type ApiData } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';

export type LoginRequest = components['schemas']['LoginRequest'];
export type LoginResult = ApiData<'/api/v1/auth/login', 'post'>;

/** loginType 1 account, 2 phone code, 3 workplace chat (console spec §3). */
export const LoginType = { Account: 1, Phone: 2, WorkplaceChat: 3 } as const;

/** Sign-in needs no session, so a refusal never logs anything out. */
export const login = (body: LoginRequest) => api.post('/api/v1/auth/login', { body, noRedirect: true });

export function useLogin(onSuccess: (result: LoginResult) => void) {
  return useMutation({ mutationFn: login, onSuccess });
}
