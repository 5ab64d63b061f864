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

/** Where a reveal goes: `/sensitive/reveal` naming the subject and module, or the subject's own endpoint. */
type RevealThrough =
  | {
      /** Whose value it is (`SubjectKind`). */
      subjectKind: number;
      /** The module named in the audit (e.g. `approval`). */
      sourceModule: string;
      reveal?: undefined;
    }
  | {
      subjectKind?: undefined;
      sourceModule?: undefined;
      /** Reveals through the subject's own endpoint (a driver's `/drivers/{id}/reveal`), naming this page. */
      reveal: (pageUrl: string) => Promise<{ value: string }>;
    };

export type SensitiveRevealProps = RevealThrough & {
  /** The value as the server sent it (already masked). */
  masked: string | null | undefined;
  /** Sensitive view type 1–10 (docs/console-spec.md §3); 4, 5, 6, 7, 9 and 10 ask before revealing. */
  sensitiveType: number;
  /** Id of the member, approval, feedback or driver. */
  subjectId: string;
  /** How a revealed value shows (images: the file key); text by default. */
  renderValue?: (value: string) => ReactNode;
  /** Shown for no value: '--' in a table, '-' in a form or detail (console spec §9). */
  blank?: string;
};

/**
 * A server-masked value with an eye toggle (debounced 200 ms, docs/console-spec.md §9). Each
 * reveal is one call (one audit row) naming this page and module; ID and
 * licence images ask first (docs/console-spec.md §6). Without `as:sensitive:view` only the
 * masked value shows.
 */
export function SensitiveReveal({ masked, sensitiveType, subjectKind, subjectId, sourceModule, reveal: revealThrough, renderValue, blank = BLANK }: SensitiveRevealProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const location = useLocation();
  const allowed = useHasPermission(SENSITIVE_VIEW_PERMISSION);
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const last = useRef(0);
  const inFlight = useRef(false);

  const text = masked ?? '';
  if (!text || EMPTY_PLACEHOLDERS.includes(text)) return <span>{text || blank}</span>;
  if (!allowed || !subjectId) return <span data-testid="masked-value">{text}</span>;

  const reveal = async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      const pageUrl = location.pathname + location.search;
      const answer = revealThrough
        ? await revealThrough(pageUrl)
        : await revealSensitive({ sensitiveType, subjectKind, subjectId, pageUrl, sourceModule });
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
