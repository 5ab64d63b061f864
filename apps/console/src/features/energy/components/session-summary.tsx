import type { ReactNode } from 'react';
import type { components } from '@/lib/api/schema';
import { yuan } from '@/lib/money';
import { kwh } from './labels';

type Totals = components['schemas']['ChargingSessionTotalsBody'];

/** The session table's summary row: the totals over every matching session (not just the page), by column. */
export function sessionSummary(totals: Totals | undefined, t: (key: string, options?: Record<string, unknown>) => string): Partial<Record<string, ReactNode>> | undefined {
  if (!totals) return undefined;
  return {
    sessionNo: <span data-testid="session-totals">{t('energy:sessions.totalsRow', { count: totals.sessionCount })}</span>,
    energyWh: kwh(totals.energyWh),
    electricityFen: yuan(totals.electricityFen),
    serviceFeeFen: yuan(totals.serviceFeeFen),
    discountFen: yuan(totals.discountFen),
    totalFen: yuan(totals.totalFen),
  };
}
