import { App } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchServerHash, nextCheckDelay, runningScriptHash, type CheckOutcome } from '@/lib/update-check';

/** Polls for a new build and offers a refresh (production builds only). */
export function UpdateNotifier() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  useEffect(() => {
    const running = runningScriptHash();
    if (!import.meta.env.PROD || !running) return;
    let timer: ReturnType<typeof setTimeout>;
    const schedule = (outcome: CheckOutcome) => {
      timer = setTimeout(() => void check(), nextCheckDelay(outcome));
    };
    const check = async () => {
      let server: string | undefined;
      try {
        server = await fetchServerHash();
      } catch {
        schedule('failed');
        return;
      }
      if (!server) return schedule('missing');
      if (server === running) return schedule('same');
      modal.confirm({
        title: t('update.title'),
        content: t('update.content'),
        okText: t('update.now'),
        cancelText: t('update.later'),
        onOk: () => window.location.reload(),
        onCancel: () => schedule('deferred'),
      });
    };
    schedule('same');
    return () => clearTimeout(timer);
  }, [modal, t]);
  return null;
}
