/**
 * Toolbar slots of the driver and usage-record lists, left empty on purpose:
 * the export and import routes (`POST /drivers/export`, `POST /usage-records/export`,
 * `GET /drivers/import-template`, `POST /drivers/import`) are being added and
 * their types are not generated yet. Wire `ExportButton` and `ImportDialog`
 * here; the pages already render these slots with the list's current query.
 */
import type { ReactNode } from 'react';
import type { DriverQuery } from '../api/drivers';
import type { UsageRecordQuery } from '../api/usage-records';
import type { UsageKind } from './vehicle-labels';

/** The driver list's current filters (paging included; an export drops it). */
export interface DriverToolbarSlotProps {
  query: DriverQuery;
}

/** Export of the driver list: `ExportButton` posting `query` to `/drivers/export`. */
export const DriverExportSlot: (props: DriverToolbarSlotProps) => ReactNode = () => null;

/** Import of drivers: `ImportDialog` with `/drivers/import-template` and `/drivers/import` (permission as:sys:driver). */
export const DriverImportSlot: () => ReactNode = () => null;

export interface UsageToolbarSlotProps {
  kind: UsageKind;
  query: UsageRecordQuery;
}

/** Export of one kind's usage records: `ExportButton` posting `query` (its `kind` set) to `/usage-records/export`. */
export const UsageExportSlot: (props: UsageToolbarSlotProps) => ReactNode = () => null;
