import { ArrowLeftOutlined, LockOutlined, UnlockOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Descriptions, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { DETAIL_BLANK, formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import {
  COMMAND_STATES,
  listLockCommands,
  listLockVehicles,
  LOCK_ACTIONS,
  LOCK_COMMANDS_KEY,
  LOCK_VEHICLES_KEY,
  lockCommandQuery,
  pollWhileRunning,
  type LockAction,
  type LockCommand,
  type LockCommandQuery,
} from '../api/lock';
import { CommandTag } from '../components/command-tag';
import { LockDialog } from '../components/lock-dialog';
import { yuan } from '../components/query';
import { codeLabel, codeOptions, LOCK_STATE_COLORS } from '../components/status';
import { PATHS } from '../paths';

/** The vehicle the page is about (`?vehicleId=&plate=`), found through the lock list by its plate. */
function useLockVehicle(vehicleId: string | undefined, plate: string | undefined) {
  return useQuery({
    queryKey: [...LOCK_VEHICLES_KEY, 'one', vehicleId, plate],
    queryFn: async () => {
      const answer = await listLockVehicles({ page: 1, size: 5, plateNumbers: plate ? [plate] : undefined });
      return answer.list.find((v) => v.vehicleId === vehicleId) ?? null;
    },
    enabled: !!vehicleId && !!plate,
    refetchInterval: (q) => pollWhileRunning([q.state.data?.lastCommand]),
  });
}

/**
 * 锁车/解锁 (lockAndUnlockCar): one vehicle's lock and unlock with its command
 * history (`?vehicleId=`), or every command in reach; states are polled until
 * each command is done.
 */
export default function LockAndUnlockCarPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const vehicleId = params.get('vehicleId') || undefined;
  const plate = params.get('plate') || undefined;
  const vehicle = useLockVehicle(vehicleId, plate);
  const [action, setAction] = useState<LockAction | null>(null);

  const fields = useMemo<FilterField[]>(
    () => [
      ...(vehicleId ? [] : [{ prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 } as FilterField]),
      { prop: 'actions', label: t('monitoring:lock.action'), type: 'select', width: 160, multiple: true, options: codeOptions(t, 'lockAction', LOCK_ACTIONS) },
      { prop: 'states', label: t('monitoring:lock.state'), type: 'select', width: 220, multiple: true, options: codeOptions(t, 'commandState', COMMAND_STATES) },
      { prop: 'time', label: t('monitoring:lock.time'), type: 'datetimerange', keys: { start: 'from', end: 'to' } },
    ],
    [t, vehicleId],
  );
  const toQuery = useMemo(() => lockCommandQuery(vehicleId), [vehicleId]);
  const queryKey = useMemo(() => [...LOCK_COMMANDS_KEY, vehicleId ?? 'all'], [vehicleId]);
  const list = useListPage<LockCommand, LockCommandQuery>({ fields, queryKey, toQuery, fetch: listLockCommands, refetchInterval: (answer) => pollWhileRunning(answer?.list ?? []) });

  const columns: ListColumn<LockCommand>[] = [
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120 },
    { prop: 'action', label: t('monitoring:lock.action'), width: 80, formatter: (row) => codeLabel(t, 'lockAction', row.action) },
    { prop: 'state', label: t('monitoring:lock.state'), width: 150, render: (row) => <CommandTag command={row} /> },
    { prop: 'reason', label: t('monitoring:lock.reason'), width: 220, showOverflowTooltip: true },
    { prop: 'failureReason', label: t('monitoring:lock.failureReason'), width: 200, showOverflowTooltip: true },
    { prop: 'operatorName', label: t('monitoring:lock.operator'), width: 110 },
    { prop: 'createdAt', label: t('monitoring:lock.createdAt'), width: 160, formatter: (row) => formatTime(row.createdAt) },
    { prop: 'updatedAt', label: t('monitoring:lock.updatedAt'), width: 160, formatter: (row) => formatTime(row.updatedAt) },
  ];

  const v = vehicle.data;
  const header = vehicleId ? (
    <div className="fd-monitor-panel" data-testid="lock-vehicle">
      <Space style={{ marginBottom: 12 }}>
        <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(PATHS.lockCarManagement)}>
          {t('monitoring:common.back')}
        </Button>
        <Button type="primary" danger icon={<LockOutlined />} onClick={() => setAction('lock')} data-testid="lock-button">
          {t('monitoring:lock.lock')}
        </Button>
        <Button icon={<UnlockOutlined />} onClick={() => setAction('unlock')} data-testid="unlock-button">
          {t('monitoring:lock.unlock')}
        </Button>
      </Space>
      <Descriptions size="small" bordered column={4}>
        <Descriptions.Item label={t('monitoring:fields.plateNumber')}>{v?.plateNumber ?? plate ?? DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:fields.vin')}>{v?.vin || DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:fields.org')}>{v?.orgName || DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:fields.usageType')}>{codeLabel(t, 'usageType', v?.usageType) || DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.lockState')}>
          {v ? <Tag color={LOCK_STATE_COLORS[v.lockState ?? 'unknown']}>{codeLabel(t, 'lockState', v.lockState ?? 'unknown')}</Tag> : DETAIL_BLANK}
        </Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.online')}>{v ? t(v.online ? 'monitoring:lock.isOnline' : 'monitoring:lock.isOffline') : DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.speed')}>{v?.speedKmh === null || v?.speedKmh === undefined ? DETAIL_BLANK : `${v.speedKmh.toFixed(1)} km/h`}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.charging')}>{v ? t(v.charging ? 'monitoring:common.yes' : 'monitoring:common.no') : DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.overdueInstalments')}>{v?.overdueInstalments ?? DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.overdueAmount')}>{v ? yuan(v.overdueAmountFen) : DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.fixTime')}>{v ? formatTime(v.lastFixTime) || DETAIL_BLANK : DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:lock.lastCommand')}>
          <CommandTag command={v?.lastCommand} />
        </Descriptions.Item>
      </Descriptions>
    </div>
  ) : null;

  return (
    <div className="fd-monitor-page">
      {header}
      <ListPage<LockCommand>
        testId="lock-command-list"
        {...list.listProps}
        banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
        table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1300, ...list.tableProps }}
      >
        <LockDialog open={!!action && !!vehicleId} action={action ?? 'lock'} vehicle={vehicleId ? { ...(v ?? {}), vehicleId, plateNumber: v?.plateNumber ?? plate ?? '' } : undefined} onClose={() => setAction(null)} />
      </ListPage>
    </div>
  );
}
