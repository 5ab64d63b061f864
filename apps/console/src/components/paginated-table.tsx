import { ConfigProvider, Input, Pagination, Select, Table, type TableColumnType, type TableProps } from 'antd';
import { useContext, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, NAV_HEIGHT_PX, PAGE_SIZES, SIDE_WIDTH_PX } from '@/config/constants';
import { BLANK, cellText } from '@/lib/format';

export interface TableColumn<T> {
  /** Field of the row; also the column key. */
  prop: string;
  label: ReactNode;
  width?: number | string;
  minWidth?: number;
  fixed?: 'left' | 'right';
  align?: 'left' | 'center' | 'right';
  sortable?: boolean;
  showOverflowTooltip?: boolean;
  /** Text for the cell (the table still applies the blank rule to it). */
  formatter?: (row: T, value: unknown, index: number) => ReactNode;
  /** Full control of the cell. */
  render?: (row: T, index: number) => ReactNode;
  children?: TableColumn<T>[];
}

export interface PaginatedTableProps<T> {
  columns: TableColumn<T>[];
  data: T[];
  total: number;
  page?: number;
  size?: number;
  onPageChange?: (page: number, size: number) => void;
  rowKey: keyof T & string;
  loading?: boolean;
  /** Serial column '序号', counting on across pages. */
  showIndex?: boolean;
  /** Checkbox column. */
  selectable?: boolean;
  selectedKeys?: Key[];
  onSelectionChange?: (keys: Key[], rows: T[]) => void;
  rowSelectable?: (row: T) => boolean;
  /** Summary row: a cell per column prop. */
  summary?: Partial<Record<string, ReactNode>>;
  hidePagination?: boolean;
  /** The table's scroll width: a wide list scrolls sideways, its scrollbar kept in view. */
  scrollX?: number | string | true;
}

/**
 * A wide list's sticky parts: the header stops under the top bar and the
 * horizontal scrollbar stays at the bottom of the window, so a long page need not
 * be scrolled to its end to scroll sideways.
 */
export const WIDE_TABLE_STICKY = { offsetHeader: NAV_HEIGHT_PX, offsetScroll: 0 } as const;

/** Width of the serial column '序号' and of the checkbox column. */
export const INDEX_COLUMN_PX = 64;
export const SELECTION_COLUMN_PX = 32;
/** Taken for a column that gives no width (the table shares what is left). */
const UNSIZED_COLUMN_PX = 100;

/** The table's visible width at 1440 px: the window less the sidebar, the page's padding and the card's. */
export const FIRST_SCREEN_TABLE_PX = 1440 - SIDE_WIDTH_PX - 2 * 16 - 2 * 16;

/**
 * The columns (props) a list shows whole before any sideways scroll: the fixed
 * ones, and those that end before the right-fixed columns begin. Each list puts
 * its key figure (plate, status, balance, amount) among them.
 */
export function firstScreenColumns<T>(columns: TableColumn<T>[], { showIndex, selectable }: { showIndex?: boolean; selectable?: boolean } = {}, width = FIRST_SCREEN_TABLE_PX): string[] {
  const widthOf = (col: TableColumn<T>) => (typeof col.width === 'number' ? col.width : (col.minWidth ?? UNSIZED_COLUMN_PX));
  const sum = (cols: TableColumn<T>[]) => cols.reduce((total, col) => total + widthOf(col), 0);
  const left = columns.filter((c) => c.fixed === 'left');
  const right = columns.filter((c) => c.fixed === 'right');
  const end = width - sum(right);
  let x = (showIndex ? INDEX_COLUMN_PX : 0) + (selectable ? SELECTION_COLUMN_PX : 0) + sum(left);
  const seen = [...left, ...right].map((c) => c.prop);
  for (const col of columns) {
    if (col.fixed) continue;
    x += widthOf(col);
    if (x > end) break;
    seen.push(col.prop);
  }
  return seen;
}

/** What a plain cell shows: formatter output or the value; blanks '--', arrays comma-joined. */
export function renderCell(value: unknown): ReactNode {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as ReactNode;
  return cellText(value);
}

function toAntColumn<T>(col: TableColumn<T>): TableColumnType<T> & { children?: TableColumnType<T>[] } {
  return {
    key: col.prop,
    dataIndex: col.prop,
    title: col.label,
    width: col.width,
    minWidth: col.minWidth,
    fixed: col.fixed,
    align: col.align,
    ellipsis: col.showOverflowTooltip ? { showTitle: true } : undefined,
    sorter: col.sortable ? (a: T, b: T) => String((a as Record<string, unknown>)[col.prop] ?? '').localeCompare(String((b as Record<string, unknown>)[col.prop] ?? '')) : undefined,
    render: (value: unknown, row: T, index: number) => {
      if (col.render) return col.render(row, index);
      return renderCell(col.formatter ? col.formatter(row, value, index) : value);
    },
    ...(col.children ? { children: col.children.map(toAntColumn) } : {}),
  };
}

/** The page a jumper's text asks for: a whole number kept within 1…pages; none for other text. */
export function jumpTarget(text: string, pages: number): number | undefined {
  if (!/^\s*\d+\s*$/.test(text)) return undefined;
  return Math.min(Math.max(Number(text), FIRST_PAGE), Math.max(pages, FIRST_PAGE));
}

interface TablePagerProps {
  page: number;
  size: number;
  total: number;
  onChange: (page: number, size: number) => void;
}

/**
 * The pager in the product's order: total, sizes, prev, pager, next, jumper
 * (antd's own puts sizes and jumper together after next). Its words are antd's,
 * in the language of the console.
 */
function TablePager({ page, size, total, onChange }: TablePagerProps) {
  const { t } = useTranslation();
  const words = useContext(ConfigProvider.ConfigContext).locale?.Pagination;
  const [jump, setJump] = useState('');
  const pages = Math.ceil(total / size);
  const go = () => {
    const target = jumpTarget(jump, pages);
    setJump('');
    if (target !== undefined && target !== page) onChange(target, size);
  };
  return (
    <div className="fd-table__pager" style={{ display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', alignItems: 'center', gap: 8, marginTop: 16 }}>
      <span className="fd-table__pager-total">{t('table.total', { total })}</span>
      <Select
        className="fd-table__pager-sizes"
        aria-label={words?.items_per_page ?? '/ page'}
        value={size}
        popupMatchSelectWidth={false}
        options={PAGE_SIZES.map((n) => ({ value: n, label: `${n} ${words?.items_per_page ?? '/ page'}` }))}
        // Another size starts again from the first page.
        onChange={(next: number) => onChange(FIRST_PAGE, next)}
      />
      <Pagination current={page} pageSize={size} total={total} showSizeChanger={false} onChange={(next) => onChange(next, size)} />
      <span className="fd-table__pager-jumper" style={{ display: 'inline-flex', alignItems: 'center', gap: 8, whiteSpace: 'nowrap' }}>
        {words?.jump_to ?? 'Go to'}
        <Input aria-label={words?.jump_to ?? 'Go to'} value={jump} style={{ width: 50 }} onChange={(e) => setJump(e.target.value)} onPressEnter={go} onBlur={go} />
        {words?.page ?? 'Page'}
      </span>
    </div>
  );
}

/**
 * The shared list table of console spec §2: optional serial and checkbox columns, optional
 * summary row, '--' for blanks, pager 'total, sizes, prev, pager, next, jumper' (in
 * that order) with sizes 5/10/20/50/100.
 */
export function PaginatedTable<T extends object>({
  columns, data, total, page = FIRST_PAGE, size = DEFAULT_PAGE_SIZE, onPageChange, rowKey, loading, showIndex, selectable,
  selectedKeys, onSelectionChange, rowSelectable, summary, hidePagination, scrollX,
}: PaginatedTableProps<T>) {
  const { t } = useTranslation();
  const antColumns: TableProps<T>['columns'] = [
    ...(showIndex
      ? [{ key: '__index', title: t('table.index'), width: 64, align: 'center' as const, render: (_: unknown, __: T, i: number) => (page - 1) * size + i + 1 }]
      : []),
    ...columns.map(toAntColumn),
  ];
  return (
    <>
      <Table<T>
        className="fd-table"
        rowKey={rowKey}
        columns={antColumns}
        dataSource={data}
        loading={loading}
        size="middle"
        scroll={scrollX ? { x: scrollX } : undefined}
        sticky={scrollX ? WIDE_TABLE_STICKY : undefined}
        rowSelection={
          selectable
            ? {
                selectedRowKeys: selectedKeys,
                onChange: (keys, rows) => onSelectionChange?.(keys, rows),
                getCheckboxProps: (row) => ({ disabled: rowSelectable ? !rowSelectable(row) : false }),
              }
            : undefined
        }
        summary={
          summary
            ? () => (
                <Table.Summary.Row className="fd-table__summary">
                  {selectable && <Table.Summary.Cell index={-1} />}
                  {showIndex && <Table.Summary.Cell index={0}>{t('table.summary')}</Table.Summary.Cell>}
                  {columns.map((col, i) => (
                    <Table.Summary.Cell key={col.prop} index={i + 1} align={col.align}>
                      {summary[col.prop] ?? (i === 0 && !showIndex ? t('table.summary') : BLANK)}
                    </Table.Summary.Cell>
                  ))}
                </Table.Summary.Row>
              )
            : undefined
        }
        pagination={false}
      />
      {/* Like antd's own: no pager for an empty list. */}
      {!hidePagination && total > 0 && <TablePager page={page} size={size} total={total} onChange={(p, s) => onPageChange?.(p, s)} />}
    </>
  );
}
