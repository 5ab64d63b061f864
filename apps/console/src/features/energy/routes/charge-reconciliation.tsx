import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import { exportFilters } from '../api/keys';
import { listStatements, STATEMENTS_KEY, statementQuery, type Statement, type StatementQuery } from '../api/statements';
import { codeLabel, codeOptions, kwh, STATEMENT_STATUS_COLORS, STATEMENT_STATUSES } from '../components/labels';
import { ConfirmStatementDialog, GenerateStatementDialog, StatementDownloadButton, StatementDrawer } from '../components/statement-dialogs';

/**
 * 充电对账 (chargeReconciliation, as:charge:settlement:page): the enterprise's
 * monthly charging statements; each opens with its per-organisation and
 * per-card lines, downloads as xlsx, and is confirmed (a bill follows) or
 * disputed. 生成本月账单 builds this month's draft (or a closed month's
 * statement) now and opens it.
 */
export default function ChargeReconciliationPage() {
  const { t } = useTranslation();
  const [viewing, setViewing] = useState<string | undefined>();
  const [deciding, setDeciding] = useState<{ statement: Statement; accepted: boolean } | null>(null);
  const [generating, setGenerating] = useState(false);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'month', label: t('energy:statements.monthRange'), type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' } },
      { prop: 'status', label: t('energy:fields.status'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'statementStatus', STATEMENT_STATUSES) },
    ],
    [t],
  );
  const list = useListPage<Statement, StatementQuery>({ fields, queryKey: STATEMENTS_KEY, toQuery: statementQuery, fetch: listStatements });

  const columns: ListColumn<Statement>[] = [
    {
      prop: 'month',
      label: t('energy:statements.month'),
      width: 110,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => setViewing(row.id)} data-testid="statement-open">
          {row.month}
        </Button>
      ),
    },
    // The amount due before the breakdown: seen at 1440 px without scrolling.
    { prop: 'totalFen', label: t('energy:statements.total'), width: 130, align: 'right', formatter: (row) => yuan(row.totalFen) },
    { prop: 'statementNo', label: t('energy:statements.statementNo'), width: 190 },
    {
      prop: 'status',
      label: t('energy:fields.status'),
      width: 100,
      render: (row) => (row.status ? <Tag color={STATEMENT_STATUS_COLORS[row.status]}>{codeLabel(t, 'statementStatus', row.status)}</Tag> : BLANK),
    },
    { prop: 'sessionCount', label: t('energy:statements.sessions'), width: 100, align: 'right' },
    { prop: 'energyWh', label: t('energy:statements.energy'), width: 120, align: 'right', formatter: (row) => kwh(row.energyWh) },
    { prop: 'electricityFen', label: t('energy:statements.electricity'), width: 120, align: 'right', formatter: (row) => yuan(row.electricityFen) },
    { prop: 'serviceFeeFen', label: t('energy:statements.serviceFee'), width: 120, align: 'right', formatter: (row) => yuan(row.serviceFeeFen) },
    { prop: 'discountFen', label: t('energy:statements.discount'), width: 110, align: 'right', formatter: (row) => yuan(row.discountFen) },
    { prop: 'generatedTime', label: t('energy:statements.generatedTime'), width: 170, formatter: (row) => formatTime(row.generatedTime) },
    { prop: 'confirmTime', label: t('energy:statements.confirmTime'), width: 170, formatter: (row) => formatTime(row.confirmTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 240,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setViewing(row.id)}>
            {t('energy:common.detail')}
          </Button>
          <StatementDownloadButton statement={row} size="small" />
          {row.status === 'PENDING_CONFIRMATION' && (
            <>
              <Button type="link" size="small" onClick={() => setDeciding({ statement: row, accepted: true })} data-testid="statement-confirm">
                {t('energy:statements.confirm')}
              </Button>
              <Button type="link" size="small" danger onClick={() => setDeciding({ statement: row, accepted: false })}>
                {t('energy:statements.dispute')}
              </Button>
            </>
          )}
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Statement>
      testId="statement-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" onClick={() => setGenerating(true)} data-testid="statement-generate">
            {t('energy:statements.generate')}
          </Button>
          <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/statements/export', { ...options, params: { query: exportFilters(list.query) } })} />
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1800, ...list.tableProps }}
    >
      <StatementDrawer statementId={viewing} onClose={() => setViewing(undefined)} />
      <GenerateStatementDialog open={generating} onClose={() => setGenerating(false)} onGenerated={(statement) => setViewing(statement.id)} />
      <ConfirmStatementDialog statement={deciding?.statement} accepted={deciding?.accepted ?? true} onClose={() => setDeciding(null)} />
    </ListPage>
  );
}
