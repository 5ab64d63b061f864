import { useMutation } from '@tanstack/react-query';
import { api, type ApiData } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';

export type SmsPurpose = 'login' | 'reset-password';
export type SmsCodeSent = ApiData<'/api/v1/auth/sms-code', 'post'>;
export type SmsCodeRequest = components['schemas']['SmsCodeRequest'] & { purpose: SmsPurpose };

/** Sends a 6-digit code to the phone; a limit answers 4029 with the wait (Retry-After). */
export const sendSmsCode = (body: SmsCodeRequest) => api.post('/api/v1/auth/sms-code', { body, noRedirect: true });

export function useSendSmsCode(options: { onSuccess: (sent: SmsCodeSent) => void; onError: (error: Error) => void }) {
  return useMutation({ mutationFn: sendSmsCode, ...options });
}
