/** How the logs show the edge's metres and seconds. */
import type { ReactNode } from 'react';
import type { LogTotals } from '../api/operation-logs';

/** Metres as kilometres with one decimal. */
export const km = (metres: number) => (metres / 1000).toFixed(1);

/** Seconds as h:mm (a month's hours pass 24). */
export function hoursMinutes(seconds: number): string {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A speed with one decimal. */
export const kmh = (speed: number) => speed.toFixed(1);

/** Watt-hours as kWh with one decimal; '-' when unknown (energy used without a SOC or a battery capacity). */
export const kwh = (wh: number | null | undefined) => (wh == null ? '-' : (wh / 1000).toFixed(1));

/** The summary row (合计 in the index column): the totals over every matching row, not only the page, by column prop. */
export function totalsRow(totals: LogTotals | undefined): Partial<Record<string, ReactNode>> | undefined {
  if (!totals) return undefined;
  return {
    mileageM: <span data-testid="totals-mileage">{km(totals.mileageM)}</span>,
    drivingSeconds: <span data-testid="totals-driving">{hoursMinutes(totals.drivingSeconds)}</span>,
    energyConsumedWh: kwh(totals.energyConsumedWh),
    energyChargedWh: kwh(totals.energyChargedWh),
    chargeCount: totals.chargeCount,
    alarmCount: totals.alarmCount,
  };
}
