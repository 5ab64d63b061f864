import { useMutation } from '@tanstack/react-query';
import { callUnpublished } from '@/lib/api-client';

/** Sends the sign-in SMS code (identity issue: not in the OpenAPI document yet). */
export const sendSmsCode = (phone: string) => callUnpublished('post', '/api/v1/auth/sms-code', { body: { phone, purpose: 'login' } });

export function useSendSmsCode(onSuccess: () => void) {
  return useMutation({ mutationFn: sendSmsCode, onSuccess });
}
