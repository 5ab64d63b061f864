import { PlusOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space, Switch, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import { FENCE_LIST_KEY, fenceQuery, inputOf, listFences, PURPOSES, SHAPES, useDeleteFence, useUpdateFence, type Geofence, type GeofenceQuery } from '../api/geofences';
import { FenceNav } from '../components/fence-nav';
import { codeLabel, codeOptions } from '../components/status';
import { PATHS, pathWith } from '../paths';

const toQuery = fenceQuery();

/** 围栏管理 (managePage): fences with filters, enable/disable and delete. */
export default function FenceManagePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const update = useUpdateFence();
  const remove = useDeleteFence();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'name', label: t('monitoring:fence.name'), type: 'input', width: 200, maxlength: 50 },
      { prop: 'shapes', label: t('monitoring:fence.shape'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'shape', SHAPES) },
      { prop: 'purposes', label: t('monitoring:fence.purpose'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'purpose', PURPOSES) },
      {
        prop: 'enabled',
        label: t('monitoring:fence.enabled'),
        type: 'select',
        width: 140,
        options: [
          { value: 'true', label: t('monitoring:fence.on') },
          { value: 'false', label: t('monitoring:fence.off') },
        ],
      },
    ],
    [t],
  );
  const list = useListPage<Geofence, GeofenceQuery>({ fields, queryKey: FENCE_LIST_KEY, toQuery, fetch: listFences });
  const open = (row: Geofence) => navigate(pathWith(PATHS.fenceDetail, { id: row.id }));

  const columns: ListColumn<Geofence>[] = [
    {
      prop: 'name',
      label: t('monitoring:fence.name'),
      width: 180,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => open(row)} data-testid="fence-name-cell">
          {row.name}
        </Button>
      ),
    },
    { prop: 'shape', label: t('monitoring:fence.shape'), width: 90, formatter: (row) => codeLabel(t, 'shape', row.shape) },
    { prop: 'purpose', label: t('monitoring:fence.purpose'), width: 90, formatter: (row) => codeLabel(t, 'purpose', row.purpose) },
    { prop: 'orgName', label: t('monitoring:fields.org'), width: 150, showOverflowTooltip: true },
    { prop: 'speedLimitKmh', label: t('monitoring:fence.speedLimit'), width: 100, align: 'right', formatter: (row) => (row.speedLimitKmh ? `${row.speedLimitKmh} km/h` : BLANK) },
    { prop: 'dwellSeconds', label: t('monitoring:fence.dwell'), width: 110, align: 'right', formatter: (row) => `${row.dwellSeconds} ${t('monitoring:fence.seconds')}` },
    {
      key: 'alarms',
      label: t('monitoring:fence.alarms'),
      width: 130,
      render: (row) => (
        <Space size={4}>
          {row.alarmOnEnter && <Tag>{t('monitoring:codes.direction.enter')}</Tag>}
          {row.alarmOnExit && <Tag>{t('monitoring:codes.direction.exit')}</Tag>}
          {!row.alarmOnEnter && !row.alarmOnExit && BLANK}
        </Space>
      ),
    },
    { prop: 'vehicleIds', label: t('monitoring:fence.vehicles'), width: 110, formatter: (row) => (row.vehicleIds.length ? t('monitoring:fence.vehicleCount', { count: row.vehicleIds.length }) : t('monitoring:fence.allVehicles')) },
    { prop: 'insideCount', label: t('monitoring:fence.inside'), width: 100, align: 'right' },
    {
      prop: 'enabled',
      label: t('monitoring:fence.enabled'),
      width: 90,
      render: (row) => (
        <Switch
          size="small"
          checked={row.enabled}
          loading={update.isPending && update.variables?.id === row.id}
          onChange={(enabled) =>
            update.mutate(
              { id: row.id, body: { ...inputOf(row), enabled } },
              { onSuccess: () => toastSuccess(t(enabled ? 'monitoring:fence.enabledDone' : 'monitoring:fence.disabledDone')) },
            )
          }
          data-testid="fence-enabled"
        />
      ),
    },
    { prop: 'updatedAt', label: t('monitoring:fence.updatedAt'), width: 160, formatter: (row) => formatTime(row.updatedAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 130,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => open(row)}>
            {t('monitoring:fence.detail')}
          </Button>
          <Popconfirm
            title={t('monitoring:fence.deleteConfirm', { name: row.name })}
            okText={t('monitoring:fence.delete')}
            okButtonProps={{ danger: true }}
            cancelText={t('monitoring:common.cancel')}
            onConfirm={() => remove.mutateAsync(row.id).then(() => toastSuccess(t('monitoring:common.deleted')))}
          >
            <Button type="link" size="small" danger data-testid="fence-delete">
              {t('monitoring:fence.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <div className="fd-monitor-page">
      <FenceNav />
      <ListPage<Geofence>
        testId="fence-list"
        {...list.listProps}
        toolbar={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(PATHS.addFence)} data-testid="fence-add">
            {t('route.addFence')}
          </Button>
        }
        banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
        table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1600, ...list.tableProps }}
      />
    </div>
  );
}
