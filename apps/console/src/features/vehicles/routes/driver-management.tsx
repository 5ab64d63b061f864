import { PlusOutlined } from '@ant-design/icons';
import { Button, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { BLANK, formatTime } from '@/lib/format';
import { SensitiveType } from '@/lib/mask';
import { DRIVER_LIST_KEY, driverQuery, listDrivers, type Driver, type DriverQuery } from '../api/drivers';
import { useOrgTreeOptions } from '@/lib/org-options';
import { DriverDetailDrawer } from '../components/driver-detail-drawer';
import { DriverFormDialog } from '../components/driver-form-dialog';
import { driverStatusColor, driverStatusLabel, driverStatusOptions, licenceClassOptions, licenceExpired } from '../components/driver-labels';
import { DriverReveal } from '../components/driver-reveal';
import { DriverExportSlot, DriverImportSlot } from '../components/toolbar-slots';

const DATE = '{y}-{m}-{d}';

/**
 * 司机管理 (driverManagement, as:sys:driver): the enterprise's drivers in the
 * caller's reach, filtered by bound plates (batch), organisation, name, phone,
 * employee number, status, licence class and expiry; phone and ID number masked
 * by the server and revealed with the audit; add, edit, and a detail drawer
 * with the operation log.
 */
export default function DriverManagementPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const [editing, setEditing] = useState<{ id?: string } | null>(null);
  const [viewing, setViewing] = useState<string | null>(null);
  const d = (key: string) => t(`vehicles.driver.${key}`);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('vehicles.driver.boundPlate'), type: 'batchInput', width: 220 },
      { prop: 'name', label: t('vehicles.driver.name'), type: 'input', width: 150, maxlength: 20 },
      {
        prop: 'phone',
        label: t('vehicles.driver.phone'),
        type: 'input',
        width: 160,
        maxlength: 11,
        // The list matches the full number; a partial one is refused before the search.
        rules: [{ pattern: /^1\d{10}$/, message: t('login.phoneInvalid') }],
      },
      { prop: 'employeeNo', label: t('vehicles.driver.employeeNo'), type: 'input', width: 150, maxlength: 32 },
      { prop: 'orgId', label: t('vehicles.fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'status', label: t('vehicles.driver.status'), type: 'select', width: 200, multiple: true, options: driverStatusOptions(t) },
      { prop: 'licenceClass', label: t('vehicles.driver.licenceClass'), type: 'select', width: 200, multiple: true, options: licenceClassOptions() },
      {
        prop: 'hasVehicle',
        label: t('vehicles.driver.hasVehicle'),
        type: 'select',
        width: 140,
        options: [
          { value: 'true', label: t('vehicles.yes') },
          { value: 'false', label: t('vehicles.no') },
        ],
      },
      { prop: 'licenceExpireTime', label: t('vehicles.driver.licenceExpireTime'), type: 'daterange', keys: { start: 'licenceExpireTimeStart', end: 'licenceExpireTimeEnd' } },
    ],
    [t, orgs],
  );
  const list = useListPage<Driver, DriverQuery>({ fields, queryKey: DRIVER_LIST_KEY, toQuery: driverQuery, fetch: listDrivers });

  const columns: ListColumn<Driver>[] = [
    {
      prop: 'name',
      label: d('name'),
      width: 110,
      fixed: 'left',
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => setViewing(row.id)} data-testid="driver-name">
          {row.name}
        </Button>
      ),
    },
    // The status beside the name: seen at 1440 px without scrolling.
    { prop: 'status', label: d('status'), width: 90, render: (row) => <Tag color={driverStatusColor(row.status)}>{driverStatusLabel(t, row.status) || BLANK}</Tag> },
    // Masked by the server; the eye reveals once per click and writes the audit.
    { prop: 'phone', label: d('phone'), width: 150, render: (row) => <DriverReveal driverId={row.id} masked={row.phone} sensitiveType={SensitiveType.Phone} /> },
    { prop: 'idNumber', label: d('idNumber'), width: 210, render: (row) => <DriverReveal driverId={row.id} masked={row.idNumber} sensitiveType={SensitiveType.IdNumber} /> },
    { prop: 'employeeNo', label: d('employeeNo'), width: 110 },
    { prop: 'orgName', label: t('vehicles.fields.org'), width: 160, showOverflowTooltip: true },
    { prop: 'licenceClass', label: d('licenceClass'), width: 100 },
    {
      prop: 'licenceExpireTime',
      label: d('licenceExpireTime'),
      width: 170,
      render: (row) =>
        row.licenceExpireTime ? (
          <Space size={4}>
            {formatTime(row.licenceExpireTime, DATE)}
            {licenceExpired(row.licenceExpireTime) && <Tag color="error">{d('licenceExpired')}</Tag>}
          </Space>
        ) : (
          BLANK
        ),
    },
    { prop: 'boundPlateNumber', label: d('boundPlate'), width: 120 },
    { prop: 'hireTime', label: d('hireTime'), width: 120, formatter: (row) => formatTime(row.hireTime, DATE) },
    { prop: 'createTime', label: t('vehicles.fields.createTime'), width: 170, formatter: (row) => formatTime(row.createTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 130,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setViewing(row.id)} data-testid="driver-detail-open">
            {t('vehicles.detail')}
          </Button>
          <Button type="link" size="small" onClick={() => setEditing({ id: row.id })} data-testid="driver-edit">
            {t('vehicles.edit')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Driver>
      testId="driver-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})} data-testid="driver-add">
            {d('add')}
          </Button>
          <DriverImportSlot />
          <DriverExportSlot query={list.query} />
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1800, ...list.tableProps }}
    >
      <DriverFormDialog open={!!editing} driverId={editing?.id} onClose={() => setEditing(null)} />
      <DriverDetailDrawer
        driverId={viewing}
        onClose={() => setViewing(null)}
        onEdit={(id) => {
          // The dialog opens alone: a drawer opened after it would stack above it.
          setViewing(null);
          setEditing({ id });
        }}
      />
    </ListPage>
  );
}
