import { ReloadOutlined } from '@ant-design/icons';
import { Button, Space, Table, Tag, type TableColumnsType } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import { LoadErrorBanner } from '@/components/load-error';
import { WIDE_TABLE_STICKY } from '@/components/paginated-table';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import '../energy.css';
import { accountTree, directChildren, useChargingAccounts, type AccountNode, type ChargingAccount } from '../api/accounts';
import { AccountSettingsDialog } from '../components/account-settings-dialog';
import { AllocateDialog } from '../components/allocate-dialog';
import { ReclaimDialog } from '../components/reclaim-dialog';
import { ACCOUNT_STATUS_COLORS, codeLabel } from '../components/labels';

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="fd-charge-stat">
      <div className="fd-charge-stat__label">{label}</div>
      <div className="fd-charge-stat__value" data-testid={testId}>
        {value || BLANK}
      </div>
    </div>
  );
}

/**
 * 余额分配 (accountBalanceAllocation): the main account's figures and the account
 * tree of the organisations with their balances; allocate from an account to
 * its direct children, reclaim from a child back to its parent, an account's
 * alert threshold and freeze. Every figure refreshes after a money move.
 */
export default function AccountBalanceAllocationPage() {
  const { t } = useTranslation();
  const accounts = useChargingAccounts();
  const [allocating, setAllocating] = useState<{ account: ChargingAccount; targetId?: string } | null>(null);
  const [reclaiming, setReclaiming] = useState<ChargingAccount | null>(null);
  const [configuring, setConfiguring] = useState<ChargingAccount | null>(null);

  const list = useMemo(() => accounts.data ?? [], [accounts.data]);
  const tree = useMemo(() => accountTree(list), [list]);
  const byId = useMemo(() => new Map(list.map((a) => [a.id, a])), [list]);
  const childrenOf = (id: string | undefined) => directChildren(list, id);
  // Stable while the dialog is open (the dialog resets its form when they change).
  const allocationTargets = useMemo(() => directChildren(list, allocating?.account.id), [list, allocating]);
  const main = list.find((a) => a.kind === 'MAIN');

  const money = (fen: number) => <span className="fd-charge-money">{yuan(fen)}</span>;
  const columns: TableColumnsType<AccountNode> = [
    { key: 'org', title: t('energy:fields.org'), dataIndex: 'orgName', width: 260, render: (name: string) => <strong>{name}</strong> },
    // The balance beside its organisation: seen at 1440 px however deep the tree.
    { key: 'available', title: t('energy:accounts.available'), dataIndex: 'availableFen', width: 140, align: 'right', render: (fen: number, row) => <span data-testid={`available-${row.id}`}>{money(fen)}</span> },
    { key: 'kind', title: t('energy:accounts.kind'), dataIndex: 'kind', width: 110, render: (kind: ChargingAccount['kind']) => codeLabel(t, 'accountKind', kind) || BLANK },
    {
      key: 'status',
      title: t('energy:fields.status'),
      dataIndex: 'status',
      width: 90,
      render: (status: ChargingAccount['status']) => (status ? <Tag color={ACCOUNT_STATUS_COLORS[status]}>{codeLabel(t, 'accountStatus', status)}</Tag> : BLANK),
    },
    { key: 'frozen', title: t('energy:accounts.frozen'), dataIndex: 'frozenFen', width: 120, align: 'right', render: money },
    { key: 'cardBalance', title: t('energy:accounts.cardBalance'), dataIndex: 'cardBalanceFen', width: 130, align: 'right', render: money },
    { key: 'threshold', title: t('energy:accounts.threshold'), dataIndex: 'lowBalanceThresholdFen', width: 130, align: 'right', render: (fen: number) => (fen ? money(fen) : BLANK) },
    { key: 'cards', title: t('energy:accounts.cards'), dataIndex: 'cardCount', width: 90, align: 'right' },
    { key: 'consumed', title: t('energy:accounts.consumed'), dataIndex: 'totalConsumedFen', width: 130, align: 'right', render: money },
    {
      key: 'actions',
      title: t('common.actions'),
      width: 200,
      fixed: 'right',
      render: (_, row) => {
        const parent = byId.get(row.parentAccountId);
        return (
          <Space size={0}>
            {childrenOf(row.id).length > 0 && (
              <Button type="link" size="small" onClick={() => setAllocating({ account: row })} data-testid="account-allocate">
                {t('energy:accounts.allocate')}
              </Button>
            )}
            {parent && (
              <Button type="link" size="small" onClick={() => setReclaiming(row)} data-testid="account-reclaim">
                {t('energy:accounts.reclaim')}
              </Button>
            )}
            <Button type="link" size="small" onClick={() => setConfiguring(row)}>
              {t('energy:accounts.settings')}
            </Button>
          </Space>
        );
      },
    },
  ];

  return (
    <div className="fd-charge-page" data-testid="account-allocation">
      <div className="fd-charge-stats">
        <Stat label={t('energy:dashboard.mainAvailable')} value={yuan(main?.availableFen)} testId="main-available" />
        <Stat label={t('energy:accounts.frozen')} value={yuan(main?.frozenFen)} />
        <Stat label={t('energy:accounts.cardBalance')} value={yuan(main?.cardBalanceFen)} />
        <Stat label={t('energy:accounts.received')} value={yuan(main?.totalReceivedFen)} />
        <Stat label={t('energy:accounts.consumed')} value={yuan(main?.totalConsumedFen)} />
      </div>
      <div className="fd-charge-panel">
        <div className="fd-charge-panel__head">
          <div>
            <div className="fd-charge-panel__title">{t('energy:accounts.tree')}</div>
            <div className="fd-charge-hint">{t('energy:accounts.mainHint')}</div>
          </div>
          <Space>
            <Button icon={<ReloadOutlined />} onClick={() => void accounts.refetch()}>
              {t('energy:common.refresh')}
            </Button>
            <ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/accounts/export', { ...options })} />
          </Space>
        </div>
        <LoadErrorBanner error={accounts.error} onRetry={() => void accounts.refetch()} />
        <Table<AccountNode>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={tree}
          loading={accounts.isFetching}
          pagination={false}
          scroll={{ x: 1400 }}
          sticky={WIDE_TABLE_STICKY}
          // Remounted once the accounts arrive, so the whole tree opens expanded.
          key={tree.length ? 'loaded' : 'empty'}
          expandable={{ defaultExpandAllRows: true }}
          locale={{ emptyText: t('energy:common.empty') }}
          data-testid="account-tree"
        />
      </div>
      <AllocateDialog account={allocating?.account} targetId={allocating?.targetId} childAccounts={allocationTargets} onClose={() => setAllocating(null)} />
      <ReclaimDialog account={reclaiming ?? undefined} parentName={byId.get(reclaiming?.parentAccountId ?? '')?.orgName} onClose={() => setReclaiming(null)} />
      <AccountSettingsDialog account={configuring ?? undefined} onClose={() => setConfiguring(null)} />
    </div>
  );
}
