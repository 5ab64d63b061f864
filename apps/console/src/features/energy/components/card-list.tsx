import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Space, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { useOrgTreeOptions } from '@/lib/org-options';
import { CARDS_KEY, cardQuery, listCards, useUnfreezeCard, type CardPage, type CardQuery, type ChargingCard } from '../api/cards';
import { exportFilters } from '../api/keys';
import { PATHS, pathWith } from '../paths';
import { CardAmountDialog } from './card-amount-dialog';
import { CardFormDialog } from './card-form-dialog';
import { CancelCardDialog, FreezeCardDialog } from './card-state-dialogs';
import { CARD_KINDS, CARD_STATUS_COLORS, CARD_STATUSES, codeLabel, codeOptions, HOLDER_KINDS } from './labels';

/** A card's budget as one cell: period, cap and what this period used. */
function budgetText(card: ChargingCard, t: (k: string) => string): string {
  const { period, limitFen, usedFen } = card.budget;
  if (!period || period === 'NONE') return codeLabel(t, 'budgetPeriod', 'NONE');
  return `${codeLabel(t, 'budgetPeriod', period)} ${yuan(usedFen)} / ${yuan(limitFen)}`;
}

/**
 * The card list of 充电卡 (every card, with issue, edit, freeze, unfreeze, cancel
 * and amount changes) and of 下级充电卡 (`junior`: the cards of the
 * sub-organisations' accounts, where amounts are handed down or taken back).
 * Filters live in the URL; the balance over every matching card shows above.
 */
export function CardList({ juniorOf }: { juniorOf?: string }) {
  const junior = juniorOf !== undefined;
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const unfreeze = useUnfreezeCard();
  const [editing, setEditing] = useState<{ id?: string } | null>(null);
  const [changing, setChanging] = useState<ChargingCard | null>(null);
  const [freezing, setFreezing] = useState<ChargingCard | null>(null);
  const [cancelling, setCancelling] = useState<ChargingCard | null>(null);

  const fields = useMemo<FilterField[]>(
    () => [
      ...(junior ? [{ prop: 'juniorOfOrgId', label: t('energy:cards.juniorOf'), type: 'selectTree' as const, width: 220, initValue: juniorOf, unReset: true, options: orgs as never }] : []),
      { prop: 'cardNo', label: t('energy:fields.cardNo'), type: 'batchInput', width: 220 },
      { prop: 'plate', label: t('energy:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'status', label: t('energy:fields.status'), type: 'select', width: 180, multiple: true, options: codeOptions(t, 'cardStatus', CARD_STATUSES) },
      { prop: 'kind', label: t('energy:cards.kind'), type: 'select', width: 160, multiple: true, options: codeOptions(t, 'cardKind', CARD_KINDS) },
      { prop: 'holderKind', label: t('energy:cards.holderKind'), type: 'select', width: 160, multiple: true, options: codeOptions(t, 'holderKind', HOLDER_KINDS) },
      { prop: 'driverName', label: t('energy:fields.driver'), type: 'input', width: 160, maxlength: 50 },
      { prop: 'issuedTime', label: t('energy:cards.issuedTime'), type: 'daterange', keys: { start: 'issuedTimeStart', end: 'issuedTimeEnd' } },
    ],
    [t, orgs, junior, juniorOf],
  );
  const queryKey = useMemo(() => [...CARDS_KEY, junior ? 'junior' : 'all'], [junior]);
  const list = useListPage<ChargingCard, CardQuery, CardPage>({ fields, queryKey, toQuery: cardQuery, fetch: listCards });

  const confirmUnfreeze = (card: ChargingCard) =>
    modal.confirm({
      title: t('energy:cards.unfreeze'),
      content: t('energy:cards.unfreezeConfirm', { cardNo: card.cardNo }),
      onOk: async () => {
        await unfreeze.mutateAsync({ id: card.id });
        toastSuccess(t('energy:cards.unfrozen'));
      },
    });

  const usable = (card: ChargingCard) => card.status === 'ACTIVE' || card.status === 'FROZEN';
  const columns: ListColumn<ChargingCard>[] = [
    { prop: 'cardNo', label: t('energy:fields.cardNo'), width: 170, fixed: 'left', render: (row) => <span data-testid="card-no-cell">{row.cardNo}</span> },
    // The key figures first: seen at 1440 px without scrolling past the fixed 操作 column.
    { prop: 'balanceFen', label: t('energy:cards.balance'), width: 120, align: 'right', render: (row) => <span data-testid="card-balance">{yuan(row.balanceFen)}</span> },
    {
      prop: 'status',
      label: t('energy:fields.status'),
      width: 90,
      render: (row) => (row.status ? <Tag color={CARD_STATUS_COLORS[row.status]}>{codeLabel(t, 'cardStatus', row.status)}</Tag> : BLANK),
    },
    { prop: 'kind', label: t('energy:cards.kind'), width: 90, formatter: (row) => codeLabel(t, 'cardKind', row.kind) },
    { prop: 'holderKind', label: t('energy:cards.holderKind'), width: 90, formatter: (row) => codeLabel(t, 'holderKind', row.holderKind) },
    { key: 'holder', label: t('energy:cards.holder'), width: 130, render: (row) => (row.holderKind === 'DRIVER' ? row.driverName : row.plateNumber) || BLANK },
    { prop: 'orgName', label: t('energy:fields.org'), width: 150, showOverflowTooltip: true },
    { key: 'budget', label: t('energy:cards.budget'), width: 190, render: (row) => budgetText(row, t) },
    { key: 'perSession', label: t('energy:cards.perSessionLimit'), width: 120, align: 'right', render: (row) => (row.budget.perSessionLimitFen ? yuan(row.budget.perSessionLimitFen) : BLANK) },
    { prop: 'totalConsumedFen', label: t('energy:cards.consumed'), width: 120, align: 'right', formatter: (row) => yuan(row.totalConsumedFen) },
    { prop: 'issuedTime', label: t('energy:cards.issuedTime'), width: 170, formatter: (row) => formatTime(row.issuedTime) },
    { prop: 'lastUsedTime', label: t('energy:cards.lastUsedTime'), width: 170, formatter: (row) => formatTime(row.lastUsedTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: junior ? 180 : 300,
      fixed: 'right',
      render: (row) => (
        <Space size={0} wrap>
          {usable(row) && (
            <Button type="link" size="small" onClick={() => setChanging(row)} data-testid="card-amount-open">
              {t('energy:cards.amountChange')}
            </Button>
          )}
          {!junior && usable(row) && (
            <Button type="link" size="small" onClick={() => setEditing({ id: row.id })} data-testid="card-edit">
              {t('energy:cards.edit')}
            </Button>
          )}
          {!junior && row.status === 'ACTIVE' && (
            <Button type="link" size="small" onClick={() => setFreezing(row)} data-testid="card-freeze">
              {t('energy:cards.freeze')}
            </Button>
          )}
          {!junior && row.status === 'FROZEN' && (
            <Button type="link" size="small" onClick={() => confirmUnfreeze(row)} data-testid="card-unfreeze">
              {t('energy:cards.unfreeze')}
            </Button>
          )}
          {!junior && usable(row) && (
            <Button type="link" size="small" danger onClick={() => setCancelling(row)} data-testid="card-cancel">
              {t('energy:cards.cancel')}
            </Button>
          )}
          <Button type="link" size="small" onClick={() => navigate(pathWith(PATHS.countChangeRecord, { cardNo: row.cardNo }))}>
            {t('energy:cards.records')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<ChargingCard>
      testId={junior ? 'junior-card-list' : 'card-list'}
      {...list.listProps}
      toolbar={
        <Space>
          {!junior && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})} data-testid="card-add">
              {t('energy:cards.add')}
            </Button>
          )}
          <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/cards/export', { ...options, params: { query: exportFilters(list.query) } })} />
        </Space>
      }
      banner={
        <>
          <LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />
          {junior && <Typography.Paragraph type="secondary">{t('energy:cards.juniorHint')}</Typography.Paragraph>}
          <Typography.Paragraph data-testid="card-total-balance">{t('energy:cards.totalBalance', { amount: yuan(list.data?.totalBalanceFen ?? 0) })}</Typography.Paragraph>
        </>
      }
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 2000, ...list.tableProps }}
    >
      <CardFormDialog open={!!editing} cardId={editing?.id} onClose={() => setEditing(null)} />
      <CardAmountDialog card={changing ?? undefined} onClose={() => setChanging(null)} />
      <FreezeCardDialog card={freezing ?? undefined} onClose={() => setFreezing(null)} />
      <CancelCardDialog card={cancelling ?? undefined} onClose={() => setCancelling(null)} />
    </ListPage>
  );
}
