import { ArrowLeftOutlined, EditOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { App, Button, Descriptions, Form, Input, Space, Spin, Tabs, Tag } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { toTableColumns, type ListColumn } from '@/components/list-page';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PaginatedTable } from '@/components/paginated-table';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE } from '@/config/constants';
import { DETAIL_BLANK, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { BINDINGS_KEY, bindingQuery, listBindings, useBindTerminal, useUnbindTerminal, type VehicleBinding } from '../api/bindings';
import { useVehicle, type Vehicle } from '../api/vehicles';
import { VehicleFormDialog } from '../components/vehicle-form-dialog';
import { codeLabel, kwh, vehicleStatusColor } from '../components/vehicle-labels';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

const DATE = '{y}-{m}-{d}';
export const VEHICLE_TABS = ['basic', 'licence', 'terminal', 'usage', 'driver', 'opLog'] as const;
export type VehicleTab = (typeof VEHICLE_TABS)[number];

// A detail shows '-' for an empty value (tables show '--').
const text = (v: ReactNode) => (v === '' || v === null || v === undefined ? DETAIL_BLANK : v);

function BasicTab({ vehicle }: { vehicle: Vehicle }) {
  const { t } = useTranslation();
  const f = (key: string) => t(`vehicles.fields.${key}`);
  return (
    <Descriptions bordered size="small" column={3} data-testid="vehicle-basic">
      <Descriptions.Item label={f('plateNumber')}>{vehicle.plateNumber}</Descriptions.Item>
      <Descriptions.Item label={f('plateColor')}>{text(codeLabel(t, 'plateColors', vehicle.plateColor))}</Descriptions.Item>
      <Descriptions.Item label={f('vin')}>{vehicle.vin}</Descriptions.Item>
      <Descriptions.Item label={f('brand')}>{text(vehicle.brand)}</Descriptions.Item>
      <Descriptions.Item label={f('model')}>{text(vehicle.model)}</Descriptions.Item>
      <Descriptions.Item label={f('category')}>{text(codeLabel(t, 'categories', vehicle.category))}</Descriptions.Item>
      <Descriptions.Item label={f('energyType')}>{text(codeLabel(t, 'energyTypes', vehicle.energyType))}</Descriptions.Item>
      <Descriptions.Item label={f('batteryCapacity')}>{text(kwh(vehicle.batteryCapacityWh))}</Descriptions.Item>
      <Descriptions.Item label={f('ratedRange')}>{text(vehicle.ratedRangeKm || '')}</Descriptions.Item>
      <Descriptions.Item label={f('engineNumber')}>{text(vehicle.engineNumber)}</Descriptions.Item>
      <Descriptions.Item label={f('org')}>{text(vehicle.orgName)}</Descriptions.Item>
      <Descriptions.Item label={f('ownershipType')}>{text(codeLabel(t, 'ownershipTypes', vehicle.ownershipType))}</Descriptions.Item>
      <Descriptions.Item label={f('status')}>
        <Tag color={vehicleStatusColor(vehicle.status)}>{text(codeLabel(t, 'statuses', vehicle.status))}</Tag>
      </Descriptions.Item>
      <Descriptions.Item label={f('usageKind')}>{text(codeLabel(t, 'usageKinds', vehicle.usageKind))}</Descriptions.Item>
      <Descriptions.Item label={f('usageStatus')}>{text(codeLabel(t, 'usageStatuses', vehicle.usageStatus))}</Descriptions.Item>
      <Descriptions.Item label={f('leaseStartTime')}>{text(formatTime(vehicle.leaseStartTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={f('leaseEndTime')}>{text(formatTime(vehicle.leaseEndTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={f('createTime')}>{text(formatTime(vehicle.createTime))}</Descriptions.Item>
      <Descriptions.Item label={f('remark')} span={3}>
        {text(vehicle.remark)}
      </Descriptions.Item>
    </Descriptions>
  );
}

function LicenceTab({ vehicle }: { vehicle: Vehicle }) {
  const { t } = useTranslation();
  const f = (key: string) => t(`vehicles.fields.${key}`);
  return (
    <Descriptions bordered size="small" column={2} data-testid="vehicle-licence">
      <Descriptions.Item label={f('plateNumber')}>{vehicle.plateNumber}</Descriptions.Item>
      <Descriptions.Item label={f('vin')}>{vehicle.vin}</Descriptions.Item>
      <Descriptions.Item label={f('licenceOwner')}>{text(vehicle.licenceOwner)}</Descriptions.Item>
      <Descriptions.Item label={f('registerTime')}>{text(formatTime(vehicle.registerTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={f('licenceIssueTime')}>{text(formatTime(vehicle.licenceIssueTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={f('inspectionExpireTime')}>{text(formatTime(vehicle.inspectionExpireTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={f('engineNumber')}>{text(vehicle.engineNumber)}</Descriptions.Item>
      <Descriptions.Item label={f('brandModel')}>{text([vehicle.brand, vehicle.model].filter(Boolean).join(' / '))}</Descriptions.Item>
    </Descriptions>
  );
}

/** The vehicle's terminal, bind/unbind, and its binding history (paged in component state: the URL names the vehicle and tab). */
function TerminalTab({ vehicle }: { vehicle: Vehicle }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [binding, setBinding] = useState(false);
  const [form] = Form.useForm<{ terminalId: string; terminalSim: string }>();
  const bind = useBindTerminal(vehicle.id);
  const unbind = useUnbindTerminal(vehicle.id);
  const [paging, setPaging] = useState({ page: FIRST_PAGE, size: DEFAULT_PAGE_SIZE });
  const history = useQuery({
    queryKey: [...BINDINGS_KEY, 'vehicle', vehicle.id, paging],
    queryFn: () => listBindings(bindingQuery({ vehicleId: vehicle.id }, paging.page, paging.size)),
    placeholderData: keepPreviousData,
  });
  const b = (key: string) => t(`vehicles.binding.${key}`);
  const columns: ListColumn<VehicleBinding>[] = [
    { prop: 'kind', label: b('kind'), width: 90, formatter: (row) => t(`vehicles.binding.kinds.${row.kind}`, { defaultValue: '' }) },
    { prop: 'targetName', label: b('target'), minWidth: 150, formatter: (row) => row.targetName || row.targetId },
    { prop: 'terminalSim', label: t('vehicles.fields.terminalSim'), width: 150 },
    { prop: 'bindTime', label: b('bindTime'), width: 170, formatter: (row) => formatTime(row.bindTime) },
    { prop: 'operatorName', label: b('operator'), width: 110 },
    { prop: 'unbindTime', label: b('unbindTime'), width: 170, formatter: (row) => formatTime(row.unbindTime) },
    { prop: 'unbindOperatorName', label: b('unbindOperator'), width: 110 },
    { prop: 'active', label: b('state'), width: 90, render: (row) => <Tag color={row.active ? 'success' : 'default'}>{row.active ? b('active') : b('ended')}</Tag> },
  ];
  const submitBind = async () => {
    const values = await form.validateFields();
    await bind.mutateAsync(values);
    toastSuccess(b('bound'));
    setBinding(false);
  };
  const confirmUnbind = () =>
    modal.confirm({
      title: b('unbind'),
      content: t('vehicles.binding.unbindConfirm', { terminal: vehicle.terminalId }),
      onOk: async () => {
        await unbind.mutateAsync();
        toastSuccess(b('unbound'));
      },
    });
  return (
    <div data-testid="vehicle-terminal">
      <Descriptions bordered size="small" column={3}>
        <Descriptions.Item label={t('vehicles.fields.terminalId')}>{vehicle.terminalId || t('vehicles.noTerminal')}</Descriptions.Item>
        <Descriptions.Item label={t('vehicles.fields.terminalSim')}>{text(vehicle.terminalSim)}</Descriptions.Item>
        <Descriptions.Item label={t('vehicles.fields.terminalBindTime')}>{text(formatTime(vehicle.terminalBindTime))}</Descriptions.Item>
      </Descriptions>
      <Space className="fd-detail__actions" style={{ margin: '12px 0' }}>
        <Button type="primary" onClick={() => setBinding(true)} data-testid="terminal-bind">
          {b('bind')}
        </Button>
        {vehicle.terminalId && (
          <Button danger onClick={confirmUnbind} data-testid="terminal-unbind">
            {b('unbind')}
          </Button>
        )}
      </Space>
      <PaginatedTable<VehicleBinding>
        rowKey="id"
        showIndex
        columns={toTableColumns(columns)}
        data={history.data?.list ?? []}
        total={history.data?.total ?? 0}
        loading={history.isFetching}
        {...paging}
        onPageChange={(page, size) => setPaging({ page, size })}
      />
      <AppDialog open={binding} title={b('bind')} onCancel={() => setBinding(false)} onConfirm={submitBind} destroyOnHidden>
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap preserve={false}>
          <Form.Item name="terminalId" label={t('vehicles.fields.terminalId')} normalize={trimInput} rules={[{ required: true, message: t('common.pleaseInput') }]}>
            <Input maxLength={32} />
          </Form.Item>
          <Form.Item name="terminalSim" label={t('vehicles.fields.terminalSim')} normalize={trimInput}>
            <Input maxLength={20} />
          </Form.Item>
        </Form>
      </AppDialog>
    </div>
  );
}

/** /carFiles?id=…&tab=…: one vehicle's asset file, its tab in the URL too. */
export default function VehicleDetailPage({ extraTabs = {} }: { extraTabs?: Partial<Record<VehicleTab, (vehicle: Vehicle) => ReactNode>> }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const id = params.get('id') ?? '';
  const tab = (VEHICLE_TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as VehicleTab) : 'basic';
  const vehicle = useVehicle(id);
  const [editing, setEditing] = useState(false);

  if (vehicle.error) return <LoadErrorResult error={vehicle.error} onRetry={() => void vehicle.refetch()} />;
  if (!vehicle.data) return <Spin className="fd-page-loading" />;
  const v = vehicle.data;
  const panes: Record<VehicleTab, (vehicle: Vehicle) => ReactNode> = {
    basic: (x) => <BasicTab vehicle={x} />,
    licence: (x) => <LicenceTab vehicle={x} />,
    terminal: (x) => <TerminalTab vehicle={x} />,
    usage: () => null,
    driver: () => null,
    opLog: () => null,
    ...extraTabs,
  };
  const shown = VEHICLE_TABS.filter((k) => k === 'basic' || k === 'licence' || k === 'terminal' || extraTabs[k]);
  return (
    <div className="fd-detail" data-testid="vehicle-detail">
      <ModuleCard
        title={t('vehicles.detailTitle', { plate: v.plateNumber })}
        extra={
          <Space>
            <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(-1)}>
              {t('vehicles.back')}
            </Button>
            <Button type="primary" icon={<EditOutlined />} onClick={() => setEditing(true)} data-testid="vehicle-detail-edit">
              {t('vehicles.edit')}
            </Button>
          </Space>
        }
      >
        <Tabs
          activeKey={tab}
          onChange={(key) => {
            const next = new URLSearchParams(params);
            next.set('tab', key);
            setParams(next, { replace: true });
          }}
          items={shown.map((key) => ({ key, label: t(`vehicles.tabs.${key}`), children: panes[key](v) }))}
        />
      </ModuleCard>
      <VehicleFormDialog open={editing} vehicleId={v.id} onClose={() => setEditing(false)} />
    </div>
  );
}
