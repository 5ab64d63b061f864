import { useCallback, useState, type ReactNode } from 'react';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE } from '@/config/constants';
import { FilterBar, type FilterField } from './filter-bar/filter-bar';
import { PaginatedTable, type PaginatedTableProps } from './paginated-table';

/** Filters, page and size of a list page. A new search starts again at page 1. */
export function useListState(initialSize = DEFAULT_PAGE_SIZE) {
  const [filters, setFilters] = useState<Record<string, unknown>>({});
  const [page, setPage] = useState(FIRST_PAGE);
  const [size, setSize] = useState(initialSize);
  const search = useCallback((values: Record<string, unknown>) => {
    setFilters(values);
    setPage(FIRST_PAGE);
  }, []);
  const changePage = useCallback((nextPage: number, nextSize: number) => {
    setPage(nextPage);
    setSize(nextSize);
  }, []);
  return { filters, page, size, search, changePage };
}

export interface ListPageProps<T> {
  testId: string;
  fields: FilterField[];
  onSearch: (values: Record<string, unknown>) => void;
  /** Buttons above the table, right-aligned. */
  toolbar?: ReactNode;
  /** Shown between the toolbar and the table, e.g. a load error. */
  banner?: ReactNode;
  table: PaginatedTableProps<T>;
  /** Dialogs the page opens. */
  children?: ReactNode;
}

/** The layout every list page shares: filter bar, then toolbar and paginated table on a card. */
export function ListPage<T extends object>({
  testId,
  fields,
  onSearch,
  toolbar,
  banner,
  table,
  children,
}: ListPageProps<T>) {
  return (
    <div className="fd-list-page" data-testid={testId}>
      <FilterBar fields={fields} onSearch={onSearch} />
      <div className="fd-list-page__table">
        {toolbar && <div className="fd-list-page__toolbar">{toolbar}</div>}
        {banner}
        <PaginatedTable<T> {...table} />
      </div>
      {children}
    </div>
  );
}
