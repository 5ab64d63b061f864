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

describe('PaginatedTable (spec §2)', () => {
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
    expect(container.querySelector('.ant-pagination-options-quick-jumper')).not.toBeNull();
    expect(container.querySelectorAll('.ant-pagination-item')).toHaveLength(5);
    await userEvent.click(container.querySelector('.ant-pagination-options .ant-select') as HTMLElement);
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['5 条/页', '10 条/页', '20 条/页', '50 条/页', '100 条/页']);
    await userEvent.click(screen.getByTitle('2'));
    expect(onPageChange).toHaveBeenCalledWith(2, 20);
  });
});
