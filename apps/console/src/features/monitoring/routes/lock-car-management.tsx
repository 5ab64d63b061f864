import { LockOutlined, UnlockOutlined } from '@ant-design/icons';
import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import { listLockVehicles, LOCK_USAGE_TYPES, LOCK_VEHICLES_KEY, lockVehicleQuery, pollWhileRunning, type LockAction, type LockVehicle, type LockVehicleQuery } from '../api/lock';
import { useOrgTreeOptions } from '@/lib/org-options';
import { CommandTag } from '../components/command-tag';
import { LockDialog } from '../components/lock-dialog';
import { yuan } from '../components/query';
import { codeLabel, codeOptions, LOCK_STATE_COLORS } from '../components/status';
import { PATHS, pathWith } from '../paths';

/** 锁车管理 (lockCarManagement): rent and rent-to-own vehicles with overdue instalments, their lock state and last command. */
export default function LockCarManagementPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const [dialog, setDialog] = useState<{ vehicle: LockVehicle; action: LockAction } | null>(null);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgIds', label: t('monitoring:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'usageTypes', label: t('monitoring:fields.usageType'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'usageType', LOCK_USAGE_TYPES) },
      { prop: 'overdueOnly', label: t('monitoring:lock.overdue'), type: 'select', width: 160, options: [{ value: 'true', label: t('monitoring:lock.overdueOnly') }] },
    ],
    [t, orgs],
  );
  const list = useListPage<LockVehicle, LockVehicleQuery>({
    fields,
    queryKey: LOCK_VEHICLES_KEY,
    toQuery: lockVehicleQuery,
    fetch: listLockVehicles,
    refetchInterval: (answer) => pollWhileRunning(answer?.list.map((v) => v.lastCommand) ?? []),
  });

  const columns: ListColumn<LockVehicle>[] = [
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'vin', label: t('monitoring:fields.vin'), width: 180 },
    { prop: 'orgName', label: t('monitoring:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'usageType', label: t('monitoring:fields.usageType'), width: 100, formatter: (row) => codeLabel(t, 'usageType', row.usageType) },
    { prop: 'overdueInstalments', label: t('monitoring:lock.overdueInstalments'), width: 100, align: 'right' },
    { prop: 'overdueAmountFen', label: t('monitoring:lock.overdueAmount'), width: 120, align: 'right', formatter: (row) => yuan(row.overdueAmountFen) },
    {
      prop: 'lockState',
      label: t('monitoring:lock.lockState'),
      width: 90,
      render: (row) => <Tag color={LOCK_STATE_COLORS[row.lockState ?? 'unknown']}>{codeLabel(t, 'lockState', row.lockState ?? 'unknown')}</Tag>,
    },
    { prop: 'online', label: t('monitoring:lock.online'), width: 80, render: (row) => <Tag color={row.online ? 'success' : 'default'}>{t(row.online ? 'monitoring:lock.isOnline' : 'monitoring:lock.isOffline')}</Tag> },
    { prop: 'speedKmh', label: t('monitoring:live.speed'), width: 90, align: 'right', formatter: (row) => (row.speedKmh === null || row.speedKmh === undefined ? BLANK : `${row.speedKmh.toFixed(1)} km/h`) },
    { prop: 'charging', label: t('monitoring:lock.charging'), width: 80, formatter: (row) => t(row.charging ? 'monitoring:common.yes' : 'monitoring:common.no') },
    { prop: 'lastFixTime', label: t('monitoring:live.fixTime'), width: 160, formatter: (row) => formatTime(row.lastFixTime) },
    { prop: 'lastCommand', label: t('monitoring:lock.lastCommand'), width: 190, render: (row) => <CommandTag command={row.lastCommand} withTime /> },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 200,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" icon={<LockOutlined />} onClick={() => setDialog({ vehicle: row, action: 'lock' })} data-testid="lock-button">
            {t('monitoring:lock.lock')}
          </Button>
          <Button type="link" size="small" icon={<UnlockOutlined />} onClick={() => setDialog({ vehicle: row, action: 'unlock' })} data-testid="unlock-button">
            {t('monitoring:lock.unlock')}
          </Button>
          <Button type="link" size="small" onClick={() => navigate(pathWith(PATHS.lockAndUnlockCar, { vehicleId: row.vehicleId, plate: row.plateNumber }))}>
            {t('monitoring:lock.records')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<LockVehicle>
      testId="lock-vehicle-list"
      {...list.listProps}
      toolbar={<Button onClick={() => navigate(PATHS.lockAndUnlockCar)}>{t('monitoring:lock.allRecords')}</Button>}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'vehicleId', showIndex: true, columns, scrollX: 1900, ...list.tableProps }}
    >
      <LockDialog open={!!dialog} action={dialog?.action ?? 'lock'} vehicle={dialog?.vehicle} onClose={() => setDialog(null)} />
    </ListPage>
  );
}
