import { EyeInvisibleOutlined, EyeOutlined, LoadingOutlined } from '@ant-design/icons';
import { App } from 'antd';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { EYE_TOGGLE_DEBOUNCE_MS } from '@/config/constants';
import { useHasPermission } from '@/lib/auth';
import { BLANK } from '@/lib/format';
import { EMPTY_PLACEHOLDERS, revealNeedsConfirm } from '@/lib/mask';
import { SENSITIVE_VIEW_PERMISSION, revealSensitive } from '@/lib/sensitive';

export interface SensitiveRevealProps {
  /** The value as the server sent it (already masked). */
  masked: string | null | undefined;
  /** Sensitive view type 1–10 (spec §3); 4, 5, 6, 7, 9 and 10 ask before revealing. */
  sensitiveType: number;
  /** Whose value it is (`SubjectKind`). */
  subjectKind: number;
  /** Id of the member, approval or feedback. */
  subjectId: string;
  /** The module named in the audit (e.g. `approval`). */
  sourceModule: string;
  /** How a revealed value shows (images: the file key); text by default. */
  renderValue?: (value: string) => ReactNode;
}

/**
 * A server-masked value with an eye toggle (debounced 200 ms, spec §9). Each
 * reveal is one `/sensitive/reveal` call (one audit row) naming this page and
 * module; ID and licence images ask first (spec §6). Without
 * `as:sensitive:view` only the masked value shows.
 */
export function SensitiveReveal({ masked, sensitiveType, subjectKind, subjectId, sourceModule, renderValue }: SensitiveRevealProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const location = useLocation();
  const allowed = useHasPermission(SENSITIVE_VIEW_PERMISSION);
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const last = useRef(0);
  const inFlight = useRef(false);

  const text = masked ?? '';
  if (!text || EMPTY_PLACEHOLDERS.includes(text)) return <span>{text || BLANK}</span>;
  if (!allowed || !subjectId) return <span data-testid="masked-value">{text}</span>;

  const reveal = async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      const answer = await revealSensitive({
        sensitiveType,
        subjectKind,
        subjectId,
        pageUrl: location.pathname + location.search,
        sourceModule,
      });
      setValue(answer.value);
    } catch {
      // The request client has shown the error; the value stays masked.
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  const toggle = () => {
    const now = Date.now();
    if (now - last.current < EYE_TOGGLE_DEBOUNCE_MS || inFlight.current) return;
    last.current = now;
    if (value !== null) return setValue(null);
    if (revealNeedsConfirm(sensitiveType)) {
      modal.confirm({ title: t('mask.confirmTitle'), content: t('mask.confirmText'), onOk: () => void reveal() });
    } else {
      void reveal();
    }
  };

  const shown = value !== null;
  return (
    <span className="fd-masked">
      <span data-testid="masked-value">{shown ? (renderValue ? renderValue(value) : value) : text}</span>
      <button type="button" className="fd-masked__eye" onClick={toggle} disabled={busy} aria-label={t(shown ? 'mask.hide' : 'mask.show')}>
        {busy ? <LoadingOutlined /> : shown ? <EyeInvisibleOutlined /> : <EyeOutlined />}
      </button>
    </span>
  );
}
