/**
 * Export and import controls of the vehicle-assets lists (exports run as server jobs):
 * an export posts the list's current filters (paging dropped) and the job's
 * file follows in export records; an import sends one xls/xlsx file and shows
 * the error table when any row failed (nothing written).
 */
import { ImportOutlined } from '@ant-design/icons';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Button } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import { ImportDialog } from '@/components/import-dialog/import-dialog';
import { api, postForm, type CallOptions } from '@/lib/api-client';
import type { BindingQuery } from '../api/bindings';
import type { DriverQuery } from '../api/drivers';
import type { PrivateCarQuery } from '../api/private-cars';
import { DRIVER_TEMPLATE_PERMISSION, downloadDriverTemplate, downloadVehicleTemplate, VEHICLE_TEMPLATE_PERMISSION } from '../api/templates';
import type { UsageRecordQuery } from '../api/usage-records';
import { DRIVERS_KEY } from '../api/drivers';
import { VEHICLES_KEY, type VehicleQuery } from '../api/vehicles';
import type { UsageKind } from './vehicle-labels';

/** A list's filters without its paging: an export writes every matching row. */
function filtersOf<Q extends { page?: number; size?: number }>(query: Q): Q {
  return { ...query, page: undefined, size: undefined };
}

export const VehicleExportSlot = ({ query }: { query: VehicleQuery }) => (
  <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/vehicles/export', { ...options, params: { query: filtersOf(query) } })} />
);

export const BindingExportSlot = ({ query }: { query: BindingQuery }) => (
  <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/vehicle-bindings/export', { ...options, params: { query: filtersOf(query) } })} />
);

export const PrivateCarExportSlot = ({ query }: { query: PrivateCarQuery }) => (
  <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/private-cars/export', { ...options, params: { query: filtersOf(query) } })} />
);

/** The driver list's current filters (paging included; an export drops it). */
export interface DriverToolbarSlotProps {
  query: DriverQuery;
}

export const DriverExportSlot = ({ query }: DriverToolbarSlotProps) => (
  <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/drivers/export', { ...options, params: { query: filtersOf(query) } })} />
);

export interface UsageToolbarSlotProps {
  kind: UsageKind;
  query: UsageRecordQuery;
}

/** Export of one kind's usage records (the query carries its kind). */
export const UsageExportSlot = ({ query }: UsageToolbarSlotProps) => (
  <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/usage-records/export', { ...options, params: { query: filtersOf(query) } })} />
);

/** An import button and its dialog; a successful import refreshes `refresh`. */
function ImportSlot(props: {
  title: string;
  testId: string;
  importFile: (file: File, options: CallOptions) => Promise<{ imported: number }>;
  downloadTemplate: () => Promise<unknown>;
  templatePermission: string;
  refresh: QueryKey;
}): ReactNode {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button icon={<ImportOutlined />} onClick={() => setOpen(true)} data-testid={props.testId}>
        {props.title}
      </Button>
      <ImportDialog
        open={open}
        title={props.title}
        importFile={props.importFile}
        downloadTemplate={props.downloadTemplate}
        templatePermission={props.templatePermission}
        onClose={() => setOpen(false)}
        onImported={() => void client.invalidateQueries({ queryKey: props.refresh })}
      />
    </>
  );
}

export function VehicleImportSlot() {
  const { t } = useTranslation();
  return (
    <ImportSlot
      title={t('vehicles.import')}
      testId="vehicle-import"
      importFile={(file, options) => postForm('/api/v1/vehicles/import', { file }, options)}
      downloadTemplate={downloadVehicleTemplate}
      templatePermission={VEHICLE_TEMPLATE_PERMISSION}
      refresh={VEHICLES_KEY}
    />
  );
}

export function DriverImportSlot() {
  const { t } = useTranslation();
  return (
    <ImportSlot
      title={t('vehicles.driver.import')}
      testId="driver-import"
      importFile={(file, options) => postForm('/api/v1/drivers/import', { file }, options)}
      downloadTemplate={downloadDriverTemplate}
      templatePermission={DRIVER_TEMPLATE_PERMISSION}
      refresh={DRIVERS_KEY}
    />
  );
}
