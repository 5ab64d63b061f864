import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { EnterpriseList } from '@/components/enterprise-list';
import { endSession } from '@/lib/auth';
import { selectEnterprise, useEnterprises, type EnterpriseChoice } from '@/lib/enterprises';
import { enterpriseToken, VISITED_VIEWS_KEY } from '@/lib/session';
import { HOME_PATH } from '@/config/routes';

/**
 * Switching enterprise from the user menu (console spec §4): the same list and choice as
 * /selectNet. The new enterprise session replaces the old one, which ends, and
 * the console starts afresh on the workbench (menus and tabs belong to an enterprise).
 */
export function SwitchEnterpriseDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { data, isPending, isError, refetch } = useEnterprises(open);
  const [choosing, setChoosing] = useState<string>();

  const choose = async (e: EnterpriseChoice) => {
    if (e.current) {
      onClose();
      return;
    }
    setChoosing(e.enterpriseId);
    const previous = enterpriseToken();
    try {
      await selectEnterprise(e.enterpriseId);
    } catch {
      setChoosing(undefined);
      return;
    }
    await endSession(previous);
    sessionStorage.removeItem(VISITED_VIEWS_KEY);
    window.location.assign(HOME_PATH);
  };

  return (
    <AppDialog title={t('enterprise.switchTitle')} open={open} onCancel={onClose} showFooter={false} width={480}>
      <EnterpriseList items={data} loading={isPending} failed={isError} onRetry={() => void refetch()} onChoose={(e) => void choose(e)} choosing={choosing} />
    </AppDialog>
  );
}
