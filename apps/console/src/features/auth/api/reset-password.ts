import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';

export type ResetPasswordRequest = Required<components['schemas']['ResetPasswordRequest']>;

/** Sets a new password with a `reset-password` SMS code; every session of the account ends. */
export const resetPasswordByPhone = (body: ResetPasswordRequest) => api.post('/api/v1/auth/password/reset-by-phone', { body, noRedirect: true });

export function useResetPasswordByPhone(onSuccess: () => void) {
  return useMutation({ mutationFn: resetPasswordByPhone, onSuccess });
}
