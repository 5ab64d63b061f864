import { useTranslation } from 'react-i18next';
import { toastWarning } from '@/lib/notify';
import type { ChangePasswordForm } from './change-password-dialog';

/**
 * Submits a password change. The gateway has no password endpoint yet (identity
 * issue); until it does, the dialog validates and says the service is not open.
 */
export function useChangePassword(onDone: () => void) {
  const { t } = useTranslation();
  return async (values: ChangePasswordForm): Promise<void> => {
    void values;
    toastWarning(t('password.unavailable'));
    onDone();
  };
}
