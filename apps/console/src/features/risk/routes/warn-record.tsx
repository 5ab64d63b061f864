import { Button, Tag } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { toastSuccess, toastWarning } from '@/lib/notify';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { listWarnings, useAcknowledgeWarnings, warningQuery, WARNINGS_KEY, type Warning, type WarningQuery } from '../api/warnings';
import { LEVEL_COLORS, RISK_LEVELS, WARNING_STATUSES, WARNING_TYPES, type WarningStatus } from '../components/labels';

const STATUS_COLORS: Record<WarningStatus, string> = { UNREAD: 'error', ACKNOWLEDGED: 'success', RESOLVED: 'default' };
/** The list opens on the warnings nobody has acknowledged yet. */
const OPEN: WarningStatus[] = ['UNREAD'];
const isUnread = (row: Warning) => row.status === 'UNREAD';

/**
 * 预警记录 (warnRecord, as:risk:warn): warnings raised daily by the platform's
 * rules (expiring licences, overdue rent, …), opening on the unread ones;
 * acknowledged one by one or as a batch of the selected rows.
 */
export default function WarnRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [selected, setSelected] = useState<Key[]>([]);
  const [confirming, setConfirming] = useState<string[] | null>(null);
  const acknowledge = useAcknowledgeWarnings();

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'warnTime', label: t('risk:warn.warnTime'), type: 'daterange', keys: { start: 'warnTimeStart', end: 'warnTimeEnd' } },
      { prop: 'warningTypes', label: t('risk:warn.type'), type: 'select', multiple: true, width: 220, options: WARNING_TYPES.map((w) => ({ value: w, label: t(`risk:warn.types.${w}`) })) },
      { prop: 'levels', label: t('risk:warn.level'), type: 'select', multiple: true, width: 180, options: RISK_LEVELS.map((l) => ({ value: l, label: t(`risk:level.${l}`) })) },
      { prop: 'statuses', label: t('risk:warn.status'), type: 'select', multiple: true, width: 200, initValue: OPEN, options: WARNING_STATUSES.map((s) => ({ value: s, label: t(`risk:warn.statuses.${s}`) })) },
      { prop: 'orgIds', label: t('risk:fields.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('risk:warn.plateNumber'), type: 'batchInput', width: 220 },
    ],
    [t, orgs],
  );
  const list = useListPage<Warning, WarningQuery>({ fields, queryKey: WARNINGS_KEY, toQuery: warningQuery, fetch: listWarnings });

  const send = async () => {
    if (!confirming) return;
    await acknowledge.mutateAsync(confirming);
    toastSuccess(t('risk:warn.acknowledged'));
    setSelected([]);
    setConfirming(null);
  };
  const batch = () => {
    if (!selected.length) return toastWarning(t('risk:warn.selectFirst'));
    setConfirming(selected.map(String));
  };

  const columns: ListColumn<Warning>[] = [
    { prop: 'plateNumber', label: t('risk:warn.plateNumber'), width: 110, fixed: 'left' },
    { prop: 'driverName', label: t('risk:warn.driver'), width: 100 },
    { prop: 'warningType', label: t('risk:warn.type'), width: 120, formatter: (row) => codeLabel(t, 'risk:warn.types', row.warningType) },
    { prop: 'level', label: t('risk:warn.level'), width: 80, render: (row) => (row.level ? <Tag color={LEVEL_COLORS[row.level]}>{t(`risk:level.${row.level}`)}</Tag> : '--') },
    { prop: 'title', label: t('risk:warn.title'), width: 180, showOverflowTooltip: true },
    { prop: 'content', label: t('risk:warn.content'), minWidth: 240, showOverflowTooltip: true },
    { prop: 'warnTime', label: t('risk:warn.warnTime'), width: 170, formatter: (row) => formatTime(row.warnTime) },
    { prop: 'status', label: t('risk:warn.status'), width: 90, render: (row) => (row.status ? <Tag color={STATUS_COLORS[row.status]}>{t(`risk:warn.statuses.${row.status}`)}</Tag> : '--') },
    { prop: 'acknowledgedBy', label: t('risk:warn.acknowledgedBy'), width: 100 },
    { prop: 'acknowledgeTime', label: t('risk:warn.acknowledgeTime'), width: 170, formatter: (row) => formatTime(row.acknowledgeTime) },
    {
      key: 'actions',
      label: t('risk:common.actions'),
      width: 80,
      fixed: 'right',
      render: (row) =>
        isUnread(row) ? (
          <Button type="link" size="small" onClick={() => setConfirming([row.id])} data-testid="warn-acknowledge">
            {t('risk:warn.acknowledge')}
          </Button>
        ) : null,
    },
  ];

  return (
    <ListPage<Warning>
      testId="warn-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" onClick={batch} data-testid="warn-batch">
          {t('risk:warn.batchAcknowledge')}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{
        rowKey: 'id',
        showIndex: true,
        columns,
        scrollX: 1500,
        selectable: true,
        selectedKeys: selected,
        onSelectionChange: (keys) => setSelected(keys),
        rowSelectable: isUnread,
        ...list.tableProps,
      }}
    >
      <AppDialog open={!!confirming} title={t('risk:warn.acknowledge')} onCancel={() => setConfirming(null)} onConfirm={send}>
        {t('risk:warn.confirmBatch', { n: confirming?.length ?? 0 })}
      </AppDialog>
    </ListPage>
  );
}
