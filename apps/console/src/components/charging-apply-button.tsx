import { Button, Tooltip } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useHasPermission } from '@/lib/auth';
import { APPLY_DEBOUNCE_MS, CHARGING_MENU_PERMISSION, useApplyChargingOpen, useChargingOpenStatus } from '@/lib/charging-open';
import { toastSuccess } from '@/lib/notify';

export interface ChargingApplyButtonProps {
  /** Ask for the state only while shown (the navbar popup). */
  enabled?: boolean;
  size?: 'small' | 'middle' | 'large';
  onApplied?: () => void;
}

/**
 * The 申请开通 button of console spec §2/§4: clicks are debounced (300 ms, the last one
 * counts), a successful application shows the console spec §8 text and the button then
 * reads 申请中, disabled (the server refuses a second application anyway). It
 * shows nothing once charging is open, or to a user without the energy menu.
 */
export function ChargingApplyButton({ enabled = true, size, onApplied }: ChargingApplyButtonProps) {
  const { t } = useTranslation();
  // Applying is an energy-menu action: without its permission there is no button (and no call).
  const allowed = useHasPermission(CHARGING_MENU_PERMISSION);
  const status = useChargingOpenStatus(enabled && allowed);
  const apply = useApplyChargingOpen();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const state = status.data?.state;
  if (!allowed || state === 'OPENED') return null;
  if (state === 'APPLYING') {
    return (
      <Button type="primary" size={size} disabled data-testid="charging-apply">
        {t('energy.applying')}
      </Button>
    );
  }
  const blacklisted = status.data?.blacklisted ?? false;
  const click = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      apply.mutate(undefined, {
        onSuccess: () => {
          toastSuccess(t('energy.applied'));
          onApplied?.();
        },
      });
    }, APPLY_DEBOUNCE_MS);
  };
  const button = (
    <Button type="primary" size={size} loading={status.isLoading || apply.isPending} disabled={blacklisted} onClick={click} data-testid="charging-apply">
      {t('energy.apply')}
    </Button>
  );
  return blacklisted ? <Tooltip title={t('energy.blacklisted')}>{button}</Tooltip> : button;
}
