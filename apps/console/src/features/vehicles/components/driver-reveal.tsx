import { EyeInvisibleOutlined, EyeOutlined, LoadingOutlined } from '@ant-design/icons';
import { App } from 'antd';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { EYE_TOGGLE_DEBOUNCE_MS } from '@/config/constants';
import { useHasPermission } from '@/lib/auth';
import { BLANK } from '@/lib/format';
import { EMPTY_PLACEHOLDERS, revealNeedsConfirm } from '@/lib/mask';
import { SENSITIVE_VIEW_PERMISSION } from '@/lib/sensitive';
import { revealDriver } from '../api/drivers';

/** The module named in the sensitive-view audit for driver values. */
export const DRIVER_SOURCE_MODULE = 'driver';

export interface DriverRevealProps {
  driverId: string;
  /** The value as the server sent it: masked text, or an image's name. */
  masked: string | null | undefined;
  /** Sensitive view type of spec §3 (1 phone, 2 ID number, 4/5 ID card, 6/7 licence, 8 address). */
  sensitiveType: number;
  /** How a revealed value shows (images: the file key); text by default. */
  renderValue?: (value: string) => ReactNode;
}

/**
 * A driver's server-masked value with the eye toggle of spec §4, revealed
 * through `POST /drivers/{id}/reveal` (one call, one audit row naming this page).
 * Behaves as the shared `SensitiveReveal` (which reveals members, approvals and
 * feedback through `/sensitive/reveal`): debounced 200 ms, ID and licence images
 * ask first, only the masked value without `as:sensitive:view`.
 */
export function DriverReveal({ driverId, masked, sensitiveType, renderValue }: DriverRevealProps) {
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
  if (!allowed || !driverId) return <span data-testid="masked-value">{text}</span>;

  const reveal = async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      const answer = await revealDriver(driverId, { sensitiveType, pageUrl: location.pathname + location.search, sourceModule: DRIVER_SOURCE_MODULE });
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
