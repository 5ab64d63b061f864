/** A driver's server-masked value with the shared eye toggle, revealed through the driver's own endpoint. */
import type { ReactNode } from 'react';
import { SensitiveReveal } from '@/components/sensitive-reveal';
import { revealDriver } from '../api/drivers';

/** The module named in the sensitive-view audit for driver values. */
export const DRIVER_SOURCE_MODULE = 'driver';

export interface DriverRevealProps {
  driverId: string;
  /** The value as the server sent it: masked text, or an image's name. */
  masked: string | null | undefined;
  /** Sensitive view type of docs/console-spec.md §3 (1 phone, 2 ID number, 4/5 ID card, 6/7 licence, 8 address). */
  sensitiveType: number;
  /** How a revealed value shows (images: the file key); text by default. */
  renderValue?: (value: string) => ReactNode;
  /** Shown for no value ('--' in the list, '-' in the detail). */
  blank?: string;
}

/**
 * `SensitiveReveal` (debounced, images ask first, masked only without
 * `as:sensitive:view`) through `POST /drivers/{id}/reveal`: one call, one
 * audit row naming this page.
 */
export function DriverReveal({ driverId, masked, sensitiveType, renderValue, blank }: DriverRevealProps) {
  return (
    <SensitiveReveal
      masked={masked}
      sensitiveType={sensitiveType}
      subjectId={driverId}
      renderValue={renderValue}
      blank={blank}
      reveal={(pageUrl) => revealDriver(driverId, { sensitiveType, pageUrl, sourceModule: DRIVER_SOURCE_MODULE })}
    />
  );
}
