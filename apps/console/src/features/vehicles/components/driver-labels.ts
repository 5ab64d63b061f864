/** Code lists of drivers (select options, tags), tied to the generated API enums. */
import dayjs from 'dayjs';
import type { components } from '@/lib/api/schema';
import { enumValues } from '@/lib/enum-values';

type Schemas = components['schemas'];
export type DriverStatus = Schemas['DriverStatus'];
export type LicenceClass = Schemas['LicenceClass'];

export const DRIVER_STATUSES = enumValues<DriverStatus>()('ACTIVE', 'SUSPENDED', 'LEFT');
export const LICENCE_CLASSES = enumValues<LicenceClass>()('A1', 'A2', 'B1', 'B2', 'C1', 'C2');

export const driverStatusColor = (status: DriverStatus | null | undefined): string =>
  status ? { ACTIVE: 'success', SUSPENDED: 'warning', LEFT: 'default' }[status] : 'default';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Select options of the driver statuses (`vehicles.driver.statuses.*`). */
export const driverStatusOptions = (t: Translate) => DRIVER_STATUSES.map((value) => ({ value, label: t(`vehicles.driver.statuses.${value}`) }));

/** Licence classes are their own labels (A1 … C2). */
export const licenceClassOptions = () => LICENCE_CLASSES.map((value) => ({ value, label: value }));

export const driverStatusLabel = (t: Translate, status: DriverStatus | null | undefined) =>
  status ? t(`vehicles.driver.statuses.${status}`, { defaultValue: '' }) : '';

/** A licence whose expiry day has passed. */
export const licenceExpired = (expire: string, today = dayjs()) => !!expire && dayjs(expire).isBefore(today, 'day');
