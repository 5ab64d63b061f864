import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE } from '@/config/constants';
import { formatTime } from '@/lib/format';
import { LoadErrorBanner } from './load-error';
import type { ListAnswer } from './list-page';
import { PaginatedTable } from './paginated-table';

/** An operation-log entry (console spec §3): what was done, by whom, when. */
export interface OperationLogEntry {
  id: string;
  remark: string;
  operName: string;
  operTime: string;
}

export interface OperationLogTableProps<Row extends OperationLogEntry> {
  /** The record's log query key (invalidated after a change to the record). */
  queryKey: QueryKey;
  fetch: (page: number, size: number) => Promise<ListAnswer<Row>>;
}

/**
 * The operation-log table of detail pages (console spec §2/§3): remark, operator and time,
 * newest first, paginated like every list.
 */
export function OperationLogTable<Row extends OperationLogEntry>({ queryKey, fetch }: OperationLogTableProps<Row>) {
  const { t } = useTranslation();
  const [page, setPage] = useState(FIRST_PAGE);
  const [size, setSize] = useState(DEFAULT_PAGE_SIZE);
  const { data, isFetching, error, refetch } = useQuery({
    queryKey: [...queryKey, { page, size }],
    queryFn: () => fetch(page, size),
    placeholderData: keepPreviousData,
  });
  return (
    <div data-testid="operation-log">
      <LoadErrorBanner error={error} onRetry={() => void refetch()} />
      <PaginatedTable<Row>
        rowKey="id"
        showIndex
        columns={[
          { prop: 'remark', label: t('opLog.remark'), minWidth: 260, showOverflowTooltip: true },
          { prop: 'operName', label: t('opLog.operName'), width: 140 },
          { prop: 'operTime', label: t('opLog.operTime'), width: 180, formatter: (row) => formatTime(row.operTime) },
        ]}
        data={data?.list ?? []}
        total={data?.total ?? 0}
        page={page}
        size={size}
        loading={isFetching}
        onPageChange={(p, s) => {
          setPage(p);
          setSize(s);
        }}
      />
    </div>
  );
}
