import { downloadFrom } from '@/lib/download';
import { i18n } from '@/lib/i18n';

/**
 * Who may download each import template (console spec §6 gates template downloads by
 * a permission string but names none): the permission the gateway requires for the
 * template's own route (`GET …/import-template` in openapi.json, checked by
 * templates.test.ts), passed to the import dialog per import. A user without it sees
 * 暂无模板下载权限 rather than a download the gateway refuses. Today the catalogue
 * gives those routes the list's permission; a template-only permission would be a
 * catalogue entry (services/org permissions.json) and the route's security.
 */
export const VEHICLE_TEMPLATE_PERMISSION = 'as:sys:car';
export const DRIVER_TEMPLATE_PERMISSION = 'as:sys:driver';

export const downloadVehicleTemplate = () => downloadFrom('/api/v1/vehicles/import-template', `${i18n.t('vehicles.import')}.xlsx`);
export const downloadDriverTemplate = () => downloadFrom('/api/v1/drivers/import-template', `${i18n.t('vehicles.driver.import')}.xlsx`);
