import { PlusOutlined } from '@ant-design/icons';
import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import { listVehicles, VEHICLE_LIST_KEY, vehicleQuery, type Vehicle, type VehicleQuery } from '../api/vehicles';
import { VehicleExportSlot, VehicleImportSlot } from '../components/toolbar-slots';
import { VehicleFormDialog } from '../components/vehicle-form-dialog';
import { codeLabel, codeOptions, ENERGY_TYPES, kwh, USAGE_KINDS, VEHICLE_STATUSES, vehicleStatusColor } from '../components/vehicle-labels';

const DATE = '{y}-{m}-{d}';

/** 车辆档案 (carFiles): the enterprise's vehicles in the caller's reach, with batch search, import and export. */
export default function VehicleListPage({ startAdding = false }: { startAdding?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const [editing, setEditing] = useState<{ id?: string } | null>(startAdding ? {} : null);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('vehicles.fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'vin', label: t('vehicles.fields.vin'), type: 'batchInput', width: 240 },
      { prop: 'orgId', label: t('vehicles.fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'brand', label: t('vehicles.fields.brand'), type: 'input', width: 150, maxlength: 32 },
      { prop: 'model', label: t('vehicles.fields.model'), type: 'input', width: 150, maxlength: 32 },
      { prop: 'status', label: t('vehicles.fields.status'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'statuses', VEHICLE_STATUSES) },
      { prop: 'usageKind', label: t('vehicles.fields.usageKind'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'usageKinds', USAGE_KINDS) },
      { prop: 'energyType', label: t('vehicles.fields.energyType'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'energyTypes', ENERGY_TYPES) },
      { prop: 'registerTime', label: t('vehicles.fields.registerTime'), type: 'daterange', keys: { start: 'registerTimeStart', end: 'registerTimeEnd' } },
      { prop: 'leaseEndTime', label: t('vehicles.fields.leaseEndTime'), type: 'daterange', keys: { start: 'leaseEndTimeStart', end: 'leaseEndTimeEnd' } },
    ],
    [t, orgs],
  );
  const list = useListPage<Vehicle, VehicleQuery>({ fields, queryKey: VEHICLE_LIST_KEY, toQuery: vehicleQuery, fetch: listVehicles });

  const open = (row: Vehicle) => navigate(`/carFiles?id=${encodeURIComponent(row.id)}`);
  const columns: ListColumn<Vehicle>[] = [
    {
      prop: 'plateNumber',
      label: t('vehicles.fields.plateNumber'),
      width: 130,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => open(row)} data-testid="vehicle-plate">
          {row.plateNumber}
        </Button>
      ),
    },
    // The status beside the plate: seen at 1440 px without scrolling.
    {
      prop: 'status',
      label: t('vehicles.fields.status'),
      width: 100,
      render: (row) => <Tag color={vehicleStatusColor(row.status)}>{codeLabel(t, 'statuses', row.status) || '--'}</Tag>,
    },
    { prop: 'vin', label: t('vehicles.fields.vin'), width: 190 },
    { key: 'brandModel', label: t('vehicles.fields.brandModel'), width: 180, render: (row) => [row.brand, row.model].filter(Boolean).join(' / ') || '--' },
    { prop: 'energyType', label: t('vehicles.fields.energyType'), width: 110, formatter: (row) => codeLabel(t, 'energyTypes', row.energyType) },
    { prop: 'batteryCapacityWh', label: t('vehicles.fields.batteryCapacity'), width: 130, align: 'right', formatter: (row) => kwh(row.batteryCapacityWh) },
    { prop: 'orgName', label: t('vehicles.fields.org'), width: 160, showOverflowTooltip: true },
    { prop: 'driverName', label: t('vehicles.fields.driver'), width: 100 },
    { prop: 'terminalId', label: t('vehicles.fields.terminalId'), width: 150 },
    { prop: 'usageKind', label: t('vehicles.fields.usageKind'), width: 100, formatter: (row) => codeLabel(t, 'usageKinds', row.usageKind) },
    { prop: 'usageStatus', label: t('vehicles.fields.usageStatus'), width: 100, formatter: (row) => codeLabel(t, 'usageStatuses', row.usageStatus) },
    { prop: 'leaseStartTime', label: t('vehicles.fields.leaseStartTime'), width: 120, formatter: (row) => formatTime(row.leaseStartTime, DATE) },
    { prop: 'leaseEndTime', label: t('vehicles.fields.leaseEndTime'), width: 120, formatter: (row) => formatTime(row.leaseEndTime, DATE) },
    { prop: 'registerTime', label: t('vehicles.fields.registerTime'), width: 120, formatter: (row) => formatTime(row.registerTime, DATE) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 130,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => open(row)}>
            {t('vehicles.detail')}
          </Button>
          <Button type="link" size="small" onClick={() => setEditing({ id: row.id })} data-testid="vehicle-edit">
            {t('vehicles.edit')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Vehicle>
      testId="vehicle-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})} data-testid="vehicle-add">
            {t('vehicles.add')}
          </Button>
          <VehicleImportSlot />
          <VehicleExportSlot query={list.query} />
          <Button onClick={() => navigate('/carManagement/assetsData/bindingLog')}>{t('vehicles.bindingLog')}</Button>
          <Button onClick={() => navigate('/carManagement/assetsData/addPrivateCar')}>{t('vehicles.privateCar.add')}</Button>
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 2100, ...list.tableProps }}
    >
      <VehicleFormDialog open={!!editing} vehicleId={editing?.id} onClose={() => setEditing(null)} />
    </ListPage>
  );
}
