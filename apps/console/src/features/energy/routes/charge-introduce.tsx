import { CheckCircleOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Steps, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ChargingApplyButton } from '@/components/charging-apply-button';
import { ENERGY_FIGURES } from '@/components/layout/energy-intro';
import { useAccess, useHasPermission } from '@/lib/auth';
import { CHARGING_MENU_PERMISSION, useChargingOpenStatus } from '@/lib/charging-open';
import { formatTime } from '@/lib/format';
import { OpenApplicationsDrawer } from '../components/open-applications-drawer';
import '../messages';
import '../energy.css';

const FEATURES = ['network', 'accounts', 'cards', 'statements'] as const;
const STEPS = ['apply', 'contact', 'sign', 'use'] as const;

/** Which step of the opening the enterprise is at (0-based). */
function currentStep(state: string | null | undefined): number {
  if (state === 'OPENED') return 3;
  if (state === 'APPLYING') return 1;
  return 0;
}

/**
 * /chargeIntroduce (查看详情 of the energy popup): what the charging service
 * offers, how it is opened, and where the enterprise stands: the application
 * (申请开通 → 申请中) or, once open, the way into 充电管理; once it has applied,
 * its 申请记录 (every application and how it was handled, with the export).
 */
export default function ChargeIntroducePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { access } = useAccess();
  const status = useChargingOpenStatus();
  // The application calls are the energy menu's: without it, no history either.
  const canApply = useHasPermission(CHARGING_MENU_PERMISSION);
  const [historyOpen, setHistoryOpen] = useState(false);
  const state = status.data?.state;
  const latest = status.data?.latestApplication;
  const energyRoute = access?.byPath.get('/energyManagement');
  const landing = energyRoute ? access?.landing(energyRoute) : undefined;
  const stateTag = state === 'OPENED' ? 'success' : state === 'APPLYING' ? 'processing' : 'default';

  return (
    <div className="fd-charge-intro" data-testid="charge-introduce">
      <div className="fd-charge-intro__hero">
        <div>
          <h2>{t('energy:intro.title')}</h2>
          <p>{t('energy:intro.subtitle')}</p>
          <p>
            {t('energy:intro.state')}：
            <Tag color={stateTag} data-testid="charge-open-state">
              {t(state === 'OPENED' ? 'energy:intro.opened' : state === 'APPLYING' ? 'energy:intro.applying' : 'energy:intro.notOpened')}
            </Tag>
            {latest?.applyTime && state === 'APPLYING' && (
              <span>
                {t('energy:intro.applyTime')}：{formatTime(latest.applyTime)}
              </span>
            )}
            {canApply && latest && (
              <Button type="link" onClick={() => setHistoryOpen(true)} data-testid="open-applications">
                {t('energy:intro.history.open')}
              </Button>
            )}
          </p>
          <div>
            {state === 'OPENED' ? (
              landing && (
                <Button type="primary" size="large" icon={<CheckCircleOutlined />} onClick={() => navigate(landing)}>
                  {t('energy:intro.goCharge')}
                </Button>
              )
            ) : (
              <ChargingApplyButton size="large" />
            )}
          </div>
        </div>
        <ul className="fd-charge-intro__figures">
          {ENERGY_FIGURES.map((f) => (
            <li key={f.label}>
              <strong>{f.value}</strong>
              <span>{t(f.label)}</span>
            </li>
          ))}
        </ul>
      </div>
      {status.data?.blacklisted && <Alert type="warning" showIcon title={t('energy:intro.blacklisted')} />}
      {latest?.status === 'REJECTED' && state === 'NOT_OPENED' && <Alert type="info" showIcon title={t('energy:intro.rejected', { reason: latest.rejectReason || '—' })} />}
      <Card title={t('energy:intro.stepsTitle')} variant="borderless">
        <Steps current={currentStep(state)} items={STEPS.map((s) => ({ title: t(`energy:intro.steps.${s}`) }))} />
      </Card>
      <Card title={t('energy:intro.featuresTitle')} variant="borderless">
        <div className="fd-charge-intro__features">
          {FEATURES.map((f) => (
            <Card key={f} size="small" title={t(`energy:intro.features.${f}.title`)}>
              {t(`energy:intro.features.${f}.desc`)}
            </Card>
          ))}
        </div>
      </Card>
      <OpenApplicationsDrawer open={historyOpen} onClose={() => setHistoryOpen(false)} />
    </div>
  );
}
