import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { ChargingApplyButton } from '@/components/charging-apply-button';
import { MenuLink } from './menu-link';

/** The four figures of the charging service (console spec §2). */
export const ENERGY_FIGURES = [
  { value: '19万+', label: 'energy.stations' },
  { value: '200万+', label: 'energy.piles' },
  { value: '15%起', label: 'energy.costDown' },
  { value: '1000+', label: 'energy.enterprises' },
] as const;

/**
 * Shown instead of the energy menu to enterprises without a charging account:
 * 申请开通 applies at once (then reads 申请中), 查看详情 opens /chargeIntroduce.
 */
export function EnergyIntro({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="fd-energy" data-testid="energy-intro">
      <div className="fd-energy__text">
        <h3>{t('energy.title')}</h3>
        <p>{t('energy.desc')}</p>
        <div className="fd-energy__actions">
          <ChargingApplyButton />
          <MenuLink path="/chargeIntroduce" onOpen={onNavigate}>
            <Button>{t('energy.details')}</Button>
          </MenuLink>
        </div>
      </div>
      <ul className="fd-energy__figures">
        {ENERGY_FIGURES.map((f) => (
          <li key={f.label}>
            <strong>{f.value}</strong>
            <span>{t(f.label)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
