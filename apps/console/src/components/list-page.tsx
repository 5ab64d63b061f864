import { keepPreviousData, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, type ReactNode } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { FIRST_PAGE } from '@/config/constants';
import { readListState, toFormValues, toListFilters, writeListState, type ListFilters, type ListState } from '@/lib/list-url';
import { FilterBar, type FilterField } from './filter-bar/filter-bar';
import { PaginatedTable, type PaginatedTableProps, type TableColumn } from './paginated-table';

/** What a list answers: `data = {list, total}`, as every list of the gateway does. */
export interface ListAnswer<Row> {
  list: Row[];
  total: number;
}

export interface ListPageOptions<Row, Query, Answer extends ListAnswer<Row> = ListAnswer<Row>> {
  /** The filter bar's fields; their props (or range keys) are the URL's keys. */
  fields: FilterField[];
  /** The list's react-query key; the query adds its parameters after it. */
  queryKey: QueryKey;
  /** URL filters and paging to the list's typed query parameters. */
  toQuery: (filters: ListFilters, page: number, size: number) => Query;
  /** The list's answer; it may carry more than the page (totals over every matching row). */
  fetch: (query: Query) => Promise<Answer>;
  /** Poll while this says so (e.g. while an export runs); off by default. */
  refetchInterval?: (answer: Answer | undefined) => number | false;
  enabled?: boolean;
}

/** Enough of the fields to tell when the filter bar's values change meaning (not their labels). */
const fieldsShape = (fields: FilterField[]) =>
  JSON.stringify(fields.map((f) => [f.prop, typeof f.type === 'string' ? f.type : 'custom', f.initValue ?? null, f.keys ?? null, f.multiple ?? false, (f.options ?? []).map((o) => o.value)]));

/**
 * A list page's state in the URL (issue 9): the filter bar's values, page and size
 * are search parameters, so back, reload and a shared link restore the list. A new
 * search goes to page 1 and adds a history entry; the same search again refetches.
 * Rows come through react-query under `queryKey` (mutations invalidate it).
 */
export function useListPage<Row, Query, Answer extends ListAnswer<Row> = ListAnswer<Row>>({ fields, queryKey, toQuery, fetch, refetchInterval, enabled = true }: ListPageOptions<Row, Query, Answer>) {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const client = useQueryClient();
  const shape = fieldsShape(fields);
  // A page kept alive in a hidden tab keeps its own query while another page is shown.
  const ownPath = useRef(location.pathname).current;
  const lastParams = useRef(params.toString());
  if (location.pathname === ownPath) lastParams.current = params.toString();
  const paramsText = lastParams.current;
  // Recomputed only when the URL or the fields' meaning changes, not on a new `fields` array.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const state: ListState = useMemo(() => readListState(new URLSearchParams(paramsText), fields), [paramsText, shape]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const formValues = useMemo(() => toFormValues(fields, state.filters), [state, shape]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const query = useMemo(() => toQuery(state.filters, state.page, state.size), [state]);
  const fullKey = useMemo(() => [...queryKey, query], [queryKey, query]);
  const result = useQuery({
    queryKey: fullKey,
    queryFn: () => fetch(query),
    placeholderData: keepPreviousData,
    enabled,
    refetchInterval: refetchInterval ? (q) => refetchInterval(q.state.data) : undefined,
  });

  const go = useCallback(
    (next: ListState) => {
      const target = writeListState(next, fields, new URLSearchParams(paramsText));
      if (target.toString() === paramsText) void client.invalidateQueries({ queryKey: fullKey });
      else setParams(target);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [paramsText, shape, client, fullKey, setParams],
  );
  const search = useCallback((values: Record<string, unknown>) => go({ filters: toListFilters(values), page: FIRST_PAGE, size: state.size }), [go, state.size]);
  const changePage = useCallback((page: number, size: number) => go({ ...state, page, size }), [go, state]);

  const rows = result.data?.list ?? [];
  const total = result.data?.total ?? 0;
  return {
    ...state,
    query,
    rows,
    total,
    data: result.data,
    isFetching: result.isFetching,
    error: result.error,
    refetch: result.refetch,
    search,
    changePage,
    /** Spread onto `ListPage`. */
    listProps: { fields, onSearch: search, filterValues: formValues },
    /** Spread onto `ListPage`'s `table`. */
    tableProps: { data: rows, total, page: state.page, size: state.size, loading: result.isFetching, onPageChange: changePage },
  };
}

/**
 * A typed table column: `prop` is a field of the row. A column that shows no
 * single field (actions, a composite) has a `key` and its own `render`.
 */
export type ListColumn<Row> = Omit<TableColumn<Row>, 'prop' | 'children'> &
  ({ prop: Extract<keyof Row, string>; key?: undefined } | { prop?: undefined; key: string; render: (row: Row, index: number) => ReactNode });

/** Typed columns as the table takes them (plain table columns pass through). */
export function toTableColumns<Row>(columns: ListColumn<Row>[]): TableColumn<Row>[] {
  return columns.map(({ key, prop, ...rest }) => ({ ...rest, prop: (prop ?? key) as string }));
}

export interface ListPageTable<T> extends Omit<PaginatedTableProps<T>, 'columns'> {
  columns: ListColumn<T>[] | TableColumn<T>[];
}

export interface ListPageProps<T> {
  testId: string;
  fields: FilterField[];
  onSearch: (values: Record<string, unknown>) => void;
  /** Values the filter bar shows (restored from the URL by `useListPage`). */
  filterValues?: Record<string, unknown>;
  /** Buttons above the table, right-aligned. */
  toolbar?: ReactNode;
  /** Shown between the toolbar and the table, e.g. a load error. */
  banner?: ReactNode;
  table: ListPageTable<T>;
  /** Dialogs the page opens. */
  children?: ReactNode;
}

/** The layout every list page shares: filter bar, then toolbar and paginated table on a card. */
export function ListPage<T extends object>({ testId, fields, onSearch, filterValues, toolbar, banner, table, children }: ListPageProps<T>) {
  const columns = toTableColumns(table.columns as ListColumn<T>[]);
  return (
    <div className="fd-list-page" data-testid={testId}>
      {/* A URL-backed list searches from its URL, never again on mount. */}
      <FilterBar fields={fields} onSearch={onSearch} values={filterValues} searchOnInit={filterValues === undefined} />
      <div className="fd-list-page__table">
        {toolbar && <div className="fd-list-page__toolbar">{toolbar}</div>}
        {banner}
        <PaginatedTable<T> {...table} columns={columns} />
      </div>
      {children}
    </div>
  );
}
