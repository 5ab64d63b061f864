import { Button, Card, Result } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ChargingApplyButton } from '@/components/charging-apply-button';
import { PageLoading } from '@/components/page-loading';
import { useChargingOpenStatus } from '@/lib/charging-open';
import { PATHS } from '../paths';

/**
 * The charging pages need an opened charging account: before that (a link or a
 * bookmark, the menu shows the introduction instead) they say so and offer the
 * application, instead of failing call by call.
 */
export function OpenedGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const status = useChargingOpenStatus();
  if (status.isLoading) return <PageLoading />;
  // Without an answer the pages try anyway (their own calls say what failed).
  // The charge blacklist closes charging even for an opened account (the introduction says why).
  if (!status.data || (status.data.state === 'OPENED' && !status.data.blacklisted)) return children;
  return (
    <Card variant="borderless" className="fd-page-card" data-testid="charging-not-opened">
      <Result
        status="info"
        title={t('energy:accounts.notOpened')}
        subTitle={status.data.blacklisted ? t('energy:intro.blacklisted') : undefined}
        extra={[
          <ChargingApplyButton key="apply" />,
          <Button key="details" onClick={() => navigate(PATHS.chargeIntroduce)}>
            {t('energy.details')}
          </Button>,
        ]}
      />
    </Card>
  );
}
