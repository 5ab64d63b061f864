import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';
import { toastSuccess } from '@/lib/notify';
import { dropPersonalToken } from '@/lib/session';

export type ChangePasswordRequest = Required<components['schemas']['ChangePasswordRequest']>;

/** The password change of console spec §5: every other session of the account ends, this one stays. */
export const changePassword = (body: ChangePasswordRequest) => api.post('/api/v1/auth/password', { body });

/** Submits the dialog: 修改密码成功 and the user stays signed in with the current session. */
export function useChangePassword(onDone: () => void) {
  const { t } = useTranslation();
  const { mutateAsync } = useMutation({ mutationFn: changePassword });
  return async (values: ChangePasswordRequest): Promise<void> => {
    await mutateAsync(values);
    // The personal session this enterprise was chosen from was one of the others.
    dropPersonalToken();
    toastSuccess(t('password.changed'));
    onDone();
  };
}
