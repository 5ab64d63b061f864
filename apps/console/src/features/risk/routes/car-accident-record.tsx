import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { ACCIDENTS_KEY, accidentQuery, listAccidents, type Accident, type AccidentQuery } from '../api/accidents';
import { AccidentDrawer, AccidentFormDialog } from '../components/accident-dialogs';
import { ACCIDENT_SEVERITIES, ACCIDENT_STATUSES } from '../components/labels';

/** Tag colours of the accident's progress: closed is done, the rest still open. */
const STATUS_COLORS: Record<string, string> = { REPORTED: 'error', LOSS_ASSESSMENT: 'warning', REPAIRING: 'processing', CLAIMING: 'processing', CLOSED: 'success' };

/**
 * 事故记录 (carAccidentRecord, as:accident): accidents newest first, filtered by
 * time, status, severity, organisation and plates; recorded and edited on the
 * dynamic form (loss typed in yuan, sent in fen), each with its detail and
 * operation log in a drawer.
 */
export default function CarAccidentRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [editing, setEditing] = useState<{ accident?: Accident } | null>(null);
  const [viewing, setViewing] = useState<string | undefined>();

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'accidentTime', label: t('risk:accident.accidentTime'), type: 'daterange', keys: { start: 'accidentTimeStart', end: 'accidentTimeEnd' } },
      { prop: 'statuses', label: t('risk:accident.status'), type: 'select', multiple: true, width: 200, options: ACCIDENT_STATUSES.map((s) => ({ value: s, label: t(`risk:accident.statuses.${s}`) })) },
      { prop: 'severities', label: t('risk:accident.severity'), type: 'select', multiple: true, width: 200, options: ACCIDENT_SEVERITIES.map((s) => ({ value: s, label: t(`risk:accident.severities.${s}`) })) },
      { prop: 'caseNo', label: t('risk:accident.caseNo'), type: 'input', width: 180 },
      { prop: 'orgIds', label: t('risk:accident.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      { prop: 'plateNumbers', label: t('risk:accident.plateNumber'), type: 'batchInput', width: 220 },
    ],
    [t, orgs],
  );
  const list = useListPage<Accident, AccidentQuery>({ fields, queryKey: ACCIDENTS_KEY, toQuery: accidentQuery, fetch: listAccidents });

  const columns: ListColumn<Accident>[] = [
    { prop: 'caseNo', label: t('risk:accident.caseNo'), width: 160, fixed: 'left' },
    { prop: 'plateNumber', label: t('risk:accident.plateNumber'), width: 110 },
    { prop: 'driverName', label: t('risk:accident.driver'), width: 100 },
    { prop: 'accidentTime', label: t('risk:accident.accidentTime'), width: 170, formatter: (row) => formatTime(row.accidentTime) },
    { prop: 'address', label: t('risk:accident.address'), minWidth: 180, showOverflowTooltip: true },
    { prop: 'severity', label: t('risk:accident.severity'), width: 110, formatter: (row) => codeLabel(t, 'risk:accident.severities', row.severity) },
    { prop: 'liability', label: t('risk:accident.liability'), width: 90, formatter: (row) => codeLabel(t, 'risk:accident.liabilities', row.liability) },
    { prop: 'injuredCount', label: t('risk:accident.injuredCount'), width: 90, align: 'right' },
    { prop: 'estimatedLossFen', label: t('risk:accident.estimatedLoss'), width: 130, align: 'right', formatter: (row) => yuan(row.estimatedLossFen) },
    { prop: 'assessedLossFen', label: t('risk:accident.assessedLoss'), width: 120, align: 'right', formatter: (row) => (row.assessedLossFen ? yuan(row.assessedLossFen) : '') },
    { prop: 'orgName', label: t('risk:accident.org'), width: 150, showOverflowTooltip: true },
    {
      prop: 'status',
      label: t('risk:accident.status'),
      width: 100,
      render: (row) => (row.status ? <Tag color={STATUS_COLORS[row.status]}>{codeLabel(t, 'risk:accident.statuses', row.status)}</Tag> : '--'),
    },
    {
      key: 'actions',
      label: t('risk:common.actions'),
      width: 120,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setViewing(row.id)} data-testid="accident-view">
            {t('risk:common.detail')}
          </Button>
          <Button type="link" size="small" disabled={row.status === 'CLOSED'} onClick={() => setEditing({ accident: row })} data-testid="accident-edit">
            {t('risk:common.edit')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Accident>
      testId="accident-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" onClick={() => setEditing({})} data-testid="accident-add">
          {t('risk:accident.add')}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1700, ...list.tableProps }}
    >
      <AccidentFormDialog open={!!editing} accident={editing?.accident} onClose={() => setEditing(null)} />
      <AccidentDrawer accidentId={viewing} onClose={() => setViewing(undefined)} />
    </ListPage>
  );
}
