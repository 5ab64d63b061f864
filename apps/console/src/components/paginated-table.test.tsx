import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { PaginatedTable, type TableColumn } from './paginated-table';

interface Row {
  id: string;
  plate: string | null;
  tags: string[];
  mileage: number;
}

const columns: TableColumn<Row>[] = [
  { prop: 'plate', label: '车牌' },
  { prop: 'tags', label: '标签' },
  { prop: 'mileage', label: '里程', formatter: (row) => (row.mileage ? `${row.mileage} km` : '') },
];
const rows: Row[] = [
  { id: '1', plate: '沪A12345', tags: ['冷链', '新能源'], mileage: 1200 },
  { id: '2', plate: null, tags: [], mileage: 0 },
];

describe('PaginatedTable (console spec §2)', () => {
  it('numbers rows in a 序号 column that continues across pages', () => {
    renderWithProviders(<PaginatedTable columns={columns} data={rows} total={42} page={3} size={20} rowKey="id" showIndex />);
    expect(screen.getByText('序号')).toBeInTheDocument();
    expect(screen.getByText('41')).toBeInTheDocument();
    expect(screen.getByText('42')).toBeInTheDocument();
  });

  it("shows '--' for blank cells and joins arrays with commas", () => {
    renderWithProviders(<PaginatedTable columns={columns} data={rows} total={2} rowKey="id" />);
    expect(screen.getByText('冷链,新能源')).toBeInTheDocument();
    expect(screen.getByText('1200 km')).toBeInTheDocument();
    const blankRow = screen.getAllByRole('row')[2];
    expect(within(blankRow).getAllByText('--')).toHaveLength(3);
  });

  it('offers a checkbox column and reports the selection', async () => {
    const onSelectionChange = vi.fn();
    renderWithProviders(<PaginatedTable columns={columns} data={rows} total={2} rowKey="id" selectable onSelectionChange={onSelectionChange} />);
    const boxes = screen.getAllByRole('checkbox');
    expect(boxes).toHaveLength(3);
    await userEvent.click(boxes[1]);
    expect(onSelectionChange).toHaveBeenCalledWith(['1'], [rows[0]]);
  });

  it('adds a summary row', () => {
    renderWithProviders(<PaginatedTable columns={columns} data={rows} total={2} rowKey="id" showIndex summary={{ mileage: '1200 km total' }} />);
    expect(screen.getByText('合计')).toBeInTheDocument();
    expect(screen.getByText('1200 km total')).toBeInTheDocument();
  });

  it('pages with total, sizes 5/10/20/50/100, pager and jumper; size 20 by default', async () => {
    const onPageChange = vi.fn();
    const { container } = renderWithProviders(<PaginatedTable columns={columns} data={rows} total={95} rowKey="id" onPageChange={onPageChange} />);
    expect(screen.getByText('共 95 条')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: '跳至' })).toBeInTheDocument();
    expect(container.querySelectorAll('.ant-pagination-item')).toHaveLength(5);
    await userEvent.click(container.querySelector('.fd-table__pager-sizes') as HTMLElement);
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['5 条/页', '10 条/页', '20 条/页', '50 条/页', '100 条/页']);
    await userEvent.click(screen.getByTitle('2'));
    expect(onPageChange).toHaveBeenCalledWith(2, 20);
  });

  it('lays the pager out as total, sizes, prev, pager, next, jumper', () => {
    const { container } = renderWithProviders(<PaginatedTable columns={columns} data={rows} total={95} rowKey="id" />);
    const parts = [
      screen.getByText('共 95 条'),
      container.querySelector('.fd-table__pager-sizes'),
      container.querySelector('.ant-pagination-prev'),
      container.querySelector('.ant-pagination-item-1'),
      container.querySelector('.ant-pagination-next'),
      screen.getByRole('textbox', { name: '跳至' }),
    ] as HTMLElement[];
    parts.forEach((part) => expect(part).not.toBeNull());
    for (let i = 1; i < parts.length; i++) {
      expect(parts[i - 1].compareDocumentPosition(parts[i]) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
  });

  it('jumps to the typed page (kept within the pages), and a new size starts from page 1', async () => {
    const onPageChange = vi.fn();
    renderWithProviders(<PaginatedTable columns={columns} data={rows} total={95} page={2} rowKey="id" onPageChange={onPageChange} />);
    await userEvent.type(screen.getByRole('textbox', { name: '跳至' }), '4{Enter}');
    expect(onPageChange).toHaveBeenLastCalledWith(4, 20);
    await userEvent.type(screen.getByRole('textbox', { name: '跳至' }), '99{Enter}');
    expect(onPageChange).toHaveBeenLastCalledWith(5, 20);
    await userEvent.type(screen.getByRole('textbox', { name: '跳至' }), 'x{Enter}');
    expect(onPageChange).toHaveBeenCalledTimes(2);
    await userEvent.click(document.querySelector('.fd-table__pager-sizes') as HTMLElement);
    await userEvent.click(await screen.findByTitle('50 条/页'));
    expect(onPageChange).toHaveBeenLastCalledWith(1, 50);
  });

  it('shows no pager for an empty list', () => {
    const { container } = renderWithProviders(<PaginatedTable columns={columns} data={[]} total={0} rowKey="id" />);
    expect(container.querySelector('.fd-table__pager')).toBeNull();
  });
});
