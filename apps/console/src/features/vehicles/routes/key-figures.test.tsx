/**
 * Each vehicle list shows its plate (or driver) and status on the first screen at
 * 1440 px: not behind the fixed 操作 column, nor past the right edge before a sideways scroll.
 */
import { waitFor } from '@testing-library/react';
import type { ReactElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PaginatedTableProps } from '@/components/paginated-table';
import { renderWithProviders } from '@/testing/render';

const tables = vi.hoisted(() => [] as PaginatedTableProps<object>[]);
vi.mock('@/components/paginated-table', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@/components/paginated-table')>();
  return {
    ...actual,
    PaginatedTable: (props: PaginatedTableProps<object>) => {
      tables.push(props);
      return null;
    },
  };
});
const { firstScreenColumns } = await import('@/components/paginated-table');
const { default: VehicleList } = await import('./vehicle-list');
const { default: DriverManagement } = await import('./driver-management');
const { default: PrivateCars } = await import('./private-cars');
const { default: UsageRecords } = await import('./usage-records');
const { default: BindingLog } = await import('./binding-log');

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
beforeEach(() => {
  tables.length = 0;
  vi.stubGlobal('fetch', vi.fn((url: string) => (url.startsWith('/api/v1/orgs') ? ok([{ orgId: 'o1', parentId: '', name: '演示物流', orgCode: 'r', level: 1 }]) : ok({ list: [], total: 0 }))));
});
afterEach(() => vi.unstubAllGlobals());

const lists: [string, ReactElement, string[]][] = [
  ['车辆档案', <VehicleList />, ['plateNumber', 'status']],
  ['司机管理', <DriverManagement />, ['name', 'status']],
  ['私车公用', <PrivateCars />, ['plateNumber', 'status']],
  ['租赁记录', <UsageRecords kind="RENT" />, ['plateNumber', 'status']],
  ['以租代售记录', <UsageRecords kind="RENT_TO_OWN" />, ['plateNumber', 'status']],
  ['绑定记录', <BindingLog />, ['plateNumber', 'active']],
];

describe('vehicle lists: the key figure on the first screen at 1440 px', () => {
  it.each(lists)('%s', async (_, page, keyFigures) => {
    renderWithProviders(page, { route: '/carManagement/assetsData/list' });
    await waitFor(() => expect(tables.length).toBeGreaterThan(0));
    const table = tables[tables.length - 1];
    const seen = firstScreenColumns(table.columns, table);
    for (const prop of keyFigures) expect(seen).toContain(prop);
  });
});
