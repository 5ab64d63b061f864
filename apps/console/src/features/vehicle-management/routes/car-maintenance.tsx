import { Button, Space, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import {
  REMINDERS_KEY,
  exportReminders,
  listReminders,
  reminderQuery,
  usePlans,
  type Reminder,
  type ReminderQuery,
} from '../api/maintenance';
import {
  MAINTENANCE_KINDS,
  REMINDER_STATUSES,
  STATUS_COLORS,
  kmText,
} from '../components/labels';
import { PlansDrawer } from '../components/plans-drawer';
import { CompleteDialog, ReminderDrawer } from '../components/reminder-dialogs';

const day = (v: string | undefined) => formatTime(v, '{y}-{m}-{d}');

/**
 * 保养提醒 (carMaintenance, as:maintain:remind): every vehicle's next service
 * under each plan, most urgent first (overdue, due, due soon, fine), due by
 * odometer or date whichever comes first and forecast from the vehicle's
 * daily mileage; filtered by plate, organisation, plan, type and state;
 * completed on the dynamic form (keep the schedule or reset it), with the
 * service history in a drawer and the plans in another; exported as xlsx.
 */
export default function CarMaintenancePage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const plans = usePlans();
  const [completing, setCompleting] = useState<Reminder | undefined>();
  const [viewing, setViewing] = useState<string | undefined>();
  const [plansOpen, setPlansOpen] = useState(false);
  const m = (key: string) => t(`vehicleManagement:reminder.${key}`);

  const planOptions = useMemo(
    () => (plans.data?.list ?? []).map((p) => ({ value: p.id, label: p.name })),
    [plans.data],
  );
  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'plateNumbers',
        label: t('vehicleManagement:reminder.plateNumber'),
        type: 'batchInput',
        width: 220,
      },
      {
        prop: 'orgIds',
        label: t('vehicleManagement:reminder.org'),
        type: 'selectTree',
        multiple: true,
        width: 220,
        options: orgs as never,
      },
      {
        prop: 'planIds',
        label: t('vehicleManagement:reminder.plan'),
        type: 'select',
        multiple: true,
        width: 200,
        options: planOptions,
      },
      {
        prop: 'kinds',
        label: t('vehicleManagement:reminder.kind'),
        type: 'select',
        multiple: true,
        width: 200,
        options: MAINTENANCE_KINDS.map((k) => ({
          value: k,
          label: t(`vehicleManagement:reminder.kinds.${k}`),
        })),
      },
      {
        prop: 'statuses',
        label: t('vehicleManagement:reminder.status'),
        type: 'select',
        multiple: true,
        width: 200,
        options: REMINDER_STATUSES.map((s) => ({
          value: s,
          label: t(`vehicleManagement:reminder.statuses.${s}`),
        })),
      },
      {
        prop: 'dueTime',
        label: t('vehicleManagement:reminder.dueTime'),
        type: 'daterange',
        keys: { start: 'dueTimeStart', end: 'dueTimeEnd' },
      },
    ],
    [t, orgs, planOptions],
  );
  const list = useListPage<Reminder, ReminderQuery>({
    fields,
    queryKey: REMINDERS_KEY,
    toQuery: reminderQuery,
    fetch: listReminders,
  });
  const itemsOf = (r: Reminder | undefined) =>
    plans.data?.list.find((p) => p.id === r?.planId)?.items ?? [];

  const columns: ListColumn<Reminder>[] = [
    { prop: 'plateNumber', label: m('plateNumber'), width: 110, fixed: 'left' },
    {
      prop: 'planName',
      label: m('plan'),
      width: 140,
      showOverflowTooltip: true,
    },
    {
      prop: 'kind',
      label: m('kind'),
      width: 110,
      formatter: (row) =>
        codeLabel(t, 'vehicleManagement:reminder.kinds', row.kind),
    },
    {
      prop: 'status',
      label: m('status'),
      width: 110,
      render: (row) =>
        row.status ? (
          <Tag color={STATUS_COLORS[row.status]} data-testid="reminder-status">
            {codeLabel(t, 'vehicleManagement:reminder.statuses', row.status)}
          </Tag>
        ) : (
          '--'
        ),
    },
    {
      prop: 'dueByMileage',
      label: m('dueBy'),
      width: 90,
      formatter: (row) =>
        row.status === 'DONE'
          ? ''
          : m(row.dueByMileage ? 'byMileage' : 'byTime'),
    },
    {
      prop: 'currentOdometerM',
      label: m('currentOdometer'),
      width: 130,
      align: 'right',
      formatter: (row) => kmText(row.currentOdometerM),
    },
    {
      prop: 'dueOdometerM',
      label: m('dueOdometer'),
      width: 130,
      align: 'right',
      formatter: (row) => kmText(row.dueOdometerM),
    },
    {
      prop: 'remainingM',
      label: m('remaining'),
      width: 120,
      align: 'right',
      formatter: (row) =>
        row.dueOdometerM && row.currentOdometerM
          ? kmText(row.remainingM) || '0'
          : '',
    },
    {
      prop: 'dueTime',
      label: m('dueDate'),
      width: 110,
      formatter: (row) => day(row.dueTime),
    },
    {
      prop: 'forecastDueTime',
      label: m('forecast'),
      width: 130,
      render: (row) =>
        row.forecastDueTime ? (
          <Tooltip
            title={
              row.dailyMileageM
                ? `${m('dailyMileage')}: ${kmText(row.dailyMileageM)}`
                : undefined
            }
          >
            <span>{day(row.forecastDueTime)}</span>
          </Tooltip>
        ) : (
          '--'
        ),
    },
    {
      prop: 'lastServiceTime',
      label: m('lastService'),
      width: 110,
      formatter: (row) => day(row.lastServiceTime),
    },
    { prop: 'orgName', label: m('org'), width: 150, showOverflowTooltip: true },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 150,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setViewing(row.id)}
            data-testid="reminder-view"
          >
            {t('vehicleManagement:common.detail')}
          </Button>
          <Button
            type="link"
            size="small"
            disabled={row.status === 'DONE'}
            onClick={() => setCompleting(row)}
            data-testid="reminder-complete"
          >
            {m('complete')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Reminder>
      testId="maintenance-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button onClick={() => setPlansOpen(true)} data-testid="plans-open">
            {m('plans')}
          </Button>
          <ExportButton
            startExport={(options) => exportReminders(list.query, options)}
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
        scrollX: 1700,
        ...list.tableProps,
      }}
    >
      <CompleteDialog
        reminder={completing}
        planItems={itemsOf(completing)}
        onClose={() => setCompleting(undefined)}
      />
      <ReminderDrawer
        reminderId={viewing}
        onClose={() => setViewing(undefined)}
      />
      <PlansDrawer open={plansOpen} onClose={() => setPlansOpen(false)} />
    </ListPage>
  );
}
