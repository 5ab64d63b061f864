import { describe, expect, it } from 'vitest';
import openapiText from '@/lib/api/openapi.json?raw';
import { DRIVER_TEMPLATE_PERMISSION, VEHICLE_TEMPLATE_PERMISSION } from './templates';

type Operation = { security?: Record<string, string[]>[] };
const openapi = JSON.parse(openapiText) as { paths: Record<string, Record<string, Operation>> };
/** The permission the gateway requires for `GET path` (its `security` in the OpenAPI document). */
const required = (path: string) => openapi.paths[path]?.get?.security?.flatMap((s) => Object.values(s).flat()) ?? [];

describe('import template permissions (console spec §6: template downloads are permission-gated)', () => {
  // The dialog's gate is the template's own permission, as the gateway enforces it: a user the
  // gateway would refuse sees 暂无模板下载权限 instead of a download that fails.
  it.each([
    ['/api/v1/vehicles/import-template', VEHICLE_TEMPLATE_PERMISSION],
    ['/api/v1/drivers/import-template', DRIVER_TEMPLATE_PERMISSION],
  ])('%s is gated by what the gateway requires for it', (path, permission) => {
    expect(required(path)).toEqual([permission]);
  });
});
