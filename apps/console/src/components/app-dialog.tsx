import { Button, Modal, type ModalProps } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_DEBOUNCE_MS } from '@/config/constants';

export interface AppDialogProps extends Omit<ModalProps, 'onOk' | 'footer' | 'onCancel'> {
  onCancel?: () => void;
  /** Confirm handler; a rejected promise keeps the dialog open. */
  onConfirm?: () => unknown;
  confirmText?: string;
  cancelText?: string;
  showFooter?: boolean;
  children?: ReactNode;
}

/**
 * The shared dialog of console spec §2: confirm '提 交', cancel '取 消', 30% wide,
 * no close on outside click, confirm clicks debounced for 1.5 s.
 */
export function AppDialog({ onConfirm, confirmText, cancelText, showFooter = true, width = '30%', onCancel, children, ...rest }: AppDialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const lastClick = useRef(0);
  // The debounce drops a second click of one submission; a dialog opened
  // again is a new one and takes its first click.
  const { open } = rest;
  useEffect(() => {
    if (open) lastClick.current = 0;
  }, [open]);
  const confirm = async () => {
    const now = Date.now();
    if (now - lastClick.current < DIALOG_DEBOUNCE_MS) return;
    lastClick.current = now;
    setBusy(true);
    try {
      await onConfirm?.();
    } catch {
      // Validation or request failure: stay open, the form or toast says why.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      width={width}
      mask={{ closable: false }}
      onCancel={onCancel}
      footer={
        showFooter
          ? [
              <Button key="cancel" onClick={() => onCancel?.()}>
                {cancelText ?? t('dialog.cancel')}
              </Button>,
              <Button key="confirm" type="primary" loading={busy} onClick={() => void confirm()}>
                {confirmText ?? t('dialog.confirm')}
              </Button>,
            ]
          : null
      }
      {...rest}
    >
      {children}
    </Modal>
  );
}
