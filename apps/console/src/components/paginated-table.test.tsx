import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { firstScreenColumns, PaginatedTable, type TableColumn } from './paginated-table';

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

describe('PaginatedTable: a wide list (scrollX)', () => {
  const wide: TableColumn<Row>[] = [
    { prop: 'plate', label: '车牌', width: 120, fixed: 'left' },
    ...Array.from({ length: 10 }, (_, i) => ({ prop: `c${i}`, label: `列${i}`, width: 150 })),
    { prop: 'actions', label: '操作', width: 200, fixed: 'right' as const },
  ];

  it('keeps its header under the top bar and its horizontal scrollbar at the bottom of the window', async () => {
    // A table wider than its box (2000 in 1000 px) and taller than the window: jsdom lays nothing out.
    const measure = (name: 'scrollWidth' | 'clientWidth' | 'offsetHeight', px: number) => vi.spyOn(HTMLElement.prototype, name, 'get').mockReturnValue(px);
    measure('scrollWidth', 2000);
    measure('clientWidth', 1000);
    measure('offsetHeight', 3000);
    const ui = <PaginatedTable columns={wide} data={rows} total={2} rowKey="id" showIndex scrollX={2000} />;
    const { container, rerender } = renderWithProviders(ui);
    // The scrollbar follows the table's body, which exists from the second render on.
    rerender(ui);
    const header = container.querySelector('.ant-table-header') as HTMLElement;
    expect(header).toHaveClass('ant-table-sticky-holder');
    expect(header.style.top).toBe('56px');
    window.dispatchEvent(new Event('scroll'));
    await waitFor(() => expect(container.querySelector('.ant-table-sticky-scroll')).toBeInTheDocument());
    const scrollbar = container.querySelector('.ant-table-sticky-scroll') as HTMLElement;
    expect(scrollbar.style.bottom).toBe('0px');
    vi.restoreAllMocks();
  });

  it('is not sticky when it fits', () => {
    const { container } = renderWithProviders(<PaginatedTable columns={columns} data={rows} total={2} rowKey="id" />);
    expect(container.querySelector('.ant-table-sticky-holder')).toBeNull();
    expect(container.querySelector('.ant-table-sticky-scroll')).toBeNull();
  });

  it('tells which columns show whole at 1440 px before any sideways scroll', () => {
    // 1160 px of table: 序号 64 + 车牌 120, then 150 each until the 200 px of 操作 begin (at 960).
    expect(firstScreenColumns(wide, { showIndex: true })).toEqual(['plate', 'actions', 'c0', 'c1', 'c2', 'c3', 'c4']);
    expect(firstScreenColumns(wide)).toEqual(['plate', 'actions', 'c0', 'c1', 'c2', 'c3', 'c4']);
    expect(firstScreenColumns(wide, { showIndex: true, selectable: true })).toEqual(['plate', 'actions', 'c0', 'c1', 'c2', 'c3']);
    expect(firstScreenColumns(wide, {}, 1000)).toEqual(['plate', 'actions', 'c0', 'c1', 'c2', 'c3']);
  });
});
