import { Button, Space } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import {
  STATEMENTS_KEY,
  exportStatements,
  listStatements,
  statementQuery,
  useRepairConfig,
  type RepairStatement,
  type StatementQuery,
} from '../api/repairs';
import { REPAIR_PATHS, STATEMENT_STATUSES } from '../components/repair-labels';
import { StatementStatusTag } from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 维修对账单 (statement, as:maintain): each shop's monthly statement of its
 * completed orders, latest month first, filtered by shop, number, state and
 * months, exported as xlsx; a row opens its detail to confirm or dispute.
 */
export default function StatementPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const config = useRepairConfig();
  const m = (key: string) => t(`${P}.${key}`);
  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'shopId',
        label: t(`${P}.shop`),
        type: 'select',
        width: 240,
        options: (config.data?.suppliers ?? []).map((s) => ({
          value: s.id,
          label: s.name,
        })),
      },
      {
        prop: 'statementNo',
        label: t(`${P}.statementNo`),
        type: 'input',
        width: 180,
      },
      {
        prop: 'statuses',
        label: t(`${P}.status`),
        type: 'select',
        multiple: true,
        width: 200,
        options: codeOptions(t, `${P}.statementStatuses`, STATEMENT_STATUSES),
      },
      {
        prop: 'period',
        label: t(`${P}.period`),
        type: 'rangeMonth',
        keys: { start: 'startMonth', end: 'endMonth' },
        notVerify: true,
      },
    ],
    [t, config.data],
  );
  const list = useListPage<
    RepairStatement,
    StatementQuery,
    Awaited<ReturnType<typeof listStatements>>
  >({
    fields,
    queryKey: STATEMENTS_KEY,
    toQuery: statementQuery,
    fetch: listStatements,
  });
  const columns: ListColumn<RepairStatement>[] = [
    { prop: 'statementNo', label: m('statementNo'), width: 170, fixed: 'left' },
    {
      prop: 'shopName',
      label: m('shop'),
      width: 240,
      showOverflowTooltip: true,
    },
    { prop: 'period', label: m('period'), width: 100 },
    {
      prop: 'orderCount',
      label: m('orderCount'),
      width: 90,
      align: 'right',
      formatter: (row) => String(row.orderCount),
    },
    {
      prop: 'totalFen',
      label: m('statementTotal'),
      width: 120,
      align: 'right',
      formatter: (row) => yuan(row.totalFen),
    },
    {
      prop: 'status',
      label: m('status'),
      width: 100,
      render: (row) => <StatementStatusTag status={row.status} />,
    },
    {
      prop: 'issuedTime',
      label: m('issuedTime'),
      width: 170,
      formatter: (row) => formatTime(row.issuedTime),
    },
    { prop: 'confirmedBy', label: m('confirmedBy'), width: 110 },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 90,
      fixed: 'right',
      render: (row) => (
        <Button
          type="link"
          size="small"
          onClick={() =>
            navigate(
              `${REPAIR_PATHS.statementDetail}?id=${encodeURIComponent(row.id)}`,
            )
          }
          data-testid="statement-view"
        >
          {t('vehicleManagement:common.detail')}
        </Button>
      ),
    },
  ];
  return (
    <ListPage<RepairStatement>
      testId="repair-statement-list"
      {...list.listProps}
      toolbar={
        <Space>
          <ExportButton
            startExport={(options) => exportStatements(list.query, options)}
          />
        </Space>
      }
      banner={
        <LoadErrorBanner
          error={list.error}
          onRetry={() => void list.refetch()}
        />
      }
      table={{
        rowKey: 'id',
        showIndex: true,
        columns,
        scrollX: 1300,
        ...list.tableProps,
      }}
    />
  );
}
