import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { App } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EYE_TOGGLE_DEBOUNCE_MS } from '@/config/constants';
import { maskText, revealNeedsConfirm, type MaskMode } from '@/lib/mask';

export interface MaskedTextProps {
  value: string | number | null | undefined;
  mode?: MaskMode;
  /** Sensitive view type (console spec §3); document types ask before revealing. */
  sensitiveType?: number;
  /** Logs the reveal (sensitive-view audit); called before the text shows. */
  onReveal?: () => Promise<unknown> | void;
}

/** Masked text with an eye toggle (debounced 200 ms). */
export function MaskedText({ value, mode = 'center', sensitiveType, onReveal }: MaskedTextProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [revealed, setRevealed] = useState(false);
  const last = useRef(0);
  const masked = maskText(value, mode);
  const plain = value === null || value === undefined ? '' : String(value);
  const toggle = () => {
    const now = Date.now();
    if (now - last.current < EYE_TOGGLE_DEBOUNCE_MS) return;
    last.current = now;
    if (revealed) return setRevealed(false);
    const reveal = async () => {
      await onReveal?.();
      setRevealed(true);
    };
    if (sensitiveType !== undefined && revealNeedsConfirm(sensitiveType)) {
      modal.confirm({ title: t('mask.confirmTitle'), content: t('mask.confirmText'), onOk: reveal });
    } else {
      void reveal();
    }
  };
  if (masked === plain) return <span>{plain}</span>;
  return (
    <span className="fd-masked">
      <span data-testid="masked-value">{revealed ? plain : masked}</span>
      <button type="button" className="fd-masked__eye" onClick={toggle} aria-label={t(revealed ? 'mask.hide' : 'mask.show')}>
        {revealed ? <EyeInvisibleOutlined /> : <EyeOutlined />}
      </button>
    </span>
  );
}
