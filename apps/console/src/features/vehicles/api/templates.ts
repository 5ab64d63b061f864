import { downloadFrom } from '@/lib/download';
import { i18n } from '@/lib/i18n';

/** Who may download the vehicle import template (console spec §6: template downloads are permission-gated). */
export const VEHICLE_IMPORT_PERMISSION = 'as:sys:car';
export const DRIVER_IMPORT_PERMISSION = 'as:sys:driver';

export const downloadVehicleTemplate = () => downloadFrom('/api/v1/vehicles/import-template', `${i18n.t('vehicles.import')}.xlsx`);
export const downloadDriverTemplate = () => downloadFrom('/api/v1/drivers/import-template', `${i18n.t('vehicles.driver.import')}.xlsx`);
