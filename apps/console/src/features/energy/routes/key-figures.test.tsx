/**
 * Each charging list shows its key figure on the first screen at 1440 px: not
 * behind the fixed 操作 column, nor past the right edge before a sideways scroll.
 */
import { screen, waitFor } from '@testing-library/react';
import type { ComponentType } from 'react';
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

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
beforeEach(() => {
  tables.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      if (url.startsWith('/api/v1/orgs')) return ok([{ orgId: 'o1', parentId: '', name: '演示物流', orgCode: 'r', level: 1 }]);
      if (url.startsWith('/api/v1/charging/accounts')) return ok([]);
      return ok({ list: [], total: 0 });
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

const lists: [string, () => Promise<{ default: ComponentType }>, string[]][] = [
  ['充电卡 (balance, status)', () => import('./electric-card'), ['cardNo', 'balanceFen', 'status']],
  ['下级充电卡 (balance, status)', () => import('./junior-electric-card'), ['cardNo', 'balanceFen', 'status']],
  ['消费记录 (plate, amount, energy, status)', () => import('./consume-record'), ['sessionNo', 'plateNumber', 'totalFen', 'energyWh', 'status']],
  ['充电对账 (amount, status)', () => import('./charge-reconciliation'), ['month', 'totalFen', 'status']],
  ['次数变更记录 (amount)', () => import('./count-change-record'), ['cardNo', 'amountFen']],
  ['余额分配记录 (amount)', () => import('./balance-allocation-record'), ['amountFen']],
  ['扫码记录 (plate, result)', () => import('./scan-plate-record'), ['plateNumber', 'result']],
];

describe('charging lists: the key figure on the first screen at 1440 px', () => {
  it.each(lists)('%s', async (_, load, keyFigures) => {
    const { default: Page } = await load();
    renderWithProviders(<Page />, { route: '/energyManagement/charge/list' });
    await waitFor(() => expect(tables.length).toBeGreaterThan(0));
    const table = tables[tables.length - 1];
    const seen = firstScreenColumns(table.columns, table);
    for (const prop of keyFigures) expect(seen).toContain(prop);
  });

  it('账户余额分配: the available balance next to its organisation', async () => {
    const { default: Page } = await import('./account-balance-allocation');
    renderWithProviders(<Page />, { route: '/energyManagement/charge/accountBalanceAllocation' });
    const headers = (await screen.findAllByRole('columnheader')).map((h) => h.textContent);
    const available = headers.findIndex((h) => h?.startsWith('可用余额'));
    expect(available).toBeGreaterThan(-1);
    expect(available).toBeLessThanOrEqual(1);
  });
});
