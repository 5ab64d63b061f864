import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Col, Form, Input, InputNumber, Row, Select, Space, Tag, TreeSelect } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { PrivateCarExportSlot } from '../components/toolbar-slots';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess, toastWarning } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { useOrgTreeOptions } from '@/lib/org-options';
import {
  listPrivateCars, PRIVATE_CAR_STATUSES, PRIVATE_CARS_KEY, privateCarQuery, privateCarStatusColor, useCreatePrivateCar, useReviewPrivateCar,
  type PrivateCar, type PrivateCarQuery,
} from '../api/private-cars';
import { codeLabel, codeOptions, ENERGY_TYPES, PLATE_COLORS, type EnergyType, type PlateColor } from '../components/vehicle-labels';
import { mobileRules, normalisePlate, plateRules, vinRules } from '../components/vehicle-rules';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface PrivateCarValues {
  orgId?: string;
  plateNumber?: string;
  plateColor?: PlateColor;
  vin?: string;
  brand?: string;
  model?: string;
  energyType?: EnergyType;
  ownerName?: string;
  ownerPhone?: string;
  allowanceYuanPerKm?: number | null;
  remark?: string;
}

/** Register an employee's car; it waits for review. */
function PrivateCarDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<PrivateCarValues>();
  const orgs = useOrgTreeOptions();
  const create = useCreatePrivateCar();
  const key = useRef(newIdempotencyKey());
  const p = (k: string) => t(`vehicles.privateCar.${k}`);
  const submit = async () => {
    const v = await form.validateFields();
    await create.mutateAsync({
      idempotencyKey: key.current,
      body: {
        orgId: v.orgId ?? '',
        plateNumber: normalisePlate(v.plateNumber ?? ''),
        plateColor: v.plateColor ?? null,
        vin: (v.vin ?? '').toUpperCase(),
        brand: v.brand ?? '',
        model: v.model ?? '',
        energyType: v.energyType ?? null,
        ownerDriverId: '',
        ownerName: v.ownerName ?? '',
        ownerPhone: v.ownerPhone ?? '',
        allowanceFenPerKm: Math.round((v.allowanceYuanPerKm ?? 0) * 100),
        licenceImages: [],
        insuranceImages: [],
        remark: v.remark ?? '',
      },
    });
    key.current = newIdempotencyKey();
    toastSuccess(p('created'));
    onClose();
  };
  return (
    <AppDialog open={open} width={760} title={p('add')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} preserve={false} data-testid="private-car-form">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item name="plateNumber" label={t('vehicles.fields.plateNumber')} normalize={trimInput} rules={plateRules(t)} validateTrigger="onBlur">
              <Input maxLength={10} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="plateColor" label={t('vehicles.fields.plateColor')}>
              <Select allowClear options={codeOptions(t, 'plateColors', PLATE_COLORS)} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="vin" label={t('vehicles.fields.vin')} normalize={trimInput} rules={vinRules(t)} validateTrigger="onBlur">
              <Input maxLength={17} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="orgId" label={t('vehicles.fields.org')} rules={[{ required: true, message: t('vehicles.rules.orgRequired') }]}>
              <TreeSelect treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgs} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="brand" label={t('vehicles.fields.brand')} normalize={trimInput}>
              <Input maxLength={32} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="model" label={t('vehicles.fields.model')} normalize={trimInput}>
              <Input maxLength={64} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="energyType" label={t('vehicles.fields.energyType')}>
              <Select allowClear options={codeOptions(t, 'energyTypes', ENERGY_TYPES)} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="allowanceYuanPerKm" label={p('allowance')}>
              <InputNumber min={0} max={100} precision={2} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="ownerName" label={p('ownerName')} normalize={trimInput} rules={[{ required: true, message: t('vehicles.driver.nameRequired') }]}>
              <Input maxLength={32} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="ownerPhone" label={p('ownerPhone')} normalize={trimInput} rules={mobileRules(t, true)}>
              <Input maxLength={11} />
            </Form.Item>
          </Col>
          <Col span={24}>
            <Form.Item name="remark" label={t('vehicles.fields.remark')} normalize={trimInput}>
              <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} />
            </Form.Item>
          </Col>
        </Row>
      </Form>
    </AppDialog>
  );
}

/** 新增私家车 (addPrivateCar): employees' cars registered for business use, reviewed before they join the fleet. */
export default function PrivateCarsPage({ startAdding = false }: { startAdding?: boolean }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const orgs = useOrgTreeOptions();
  const review = useReviewPrivateCar();
  const [adding, setAdding] = useState(startAdding);
  const p = (k: string) => t(`vehicles.privateCar.${k}`);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('vehicles.fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgId', label: t('vehicles.fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'status', label: t('vehicles.privateCar.status'), type: 'select', width: 200, multiple: true, options: PRIVATE_CAR_STATUSES.map((s) => ({ value: s, label: t(`vehicles.privateCar.statuses.${s}`) })) },
      { prop: 'ownerName', label: t('vehicles.privateCar.ownerName'), type: 'input', width: 150, maxlength: 32 },
    ],
    [t, orgs],
  );
  const list = useListPage<PrivateCar, PrivateCarQuery>({ fields, queryKey: [...PRIVATE_CARS_KEY, 'list'], toQuery: privateCarQuery, fetch: listPrivateCars });

  const reject = (row: PrivateCar) => {
    let reason = '';
    modal.confirm({
      title: p('reject'),
      content: <Input.TextArea maxLength={200} autoSize={{ minRows: 2 }} placeholder={p('rejectReason')} onChange={(e) => (reason = e.target.value.trim())} />,
      onOk: async () => {
        if (!reason) {
          toastWarning(p('rejectReasonRequired'));
          throw new Error('reason required');
        }
        await review.mutateAsync({ id: row.id, approve: false, rejectReason: reason });
        toastSuccess(p('reviewed'));
      },
    });
  };
  const approve = async (row: PrivateCar) => {
    await review.mutateAsync({ id: row.id, approve: true, rejectReason: '' });
    toastSuccess(p('reviewed'));
  };

  const columns: ListColumn<PrivateCar>[] = [
    { prop: 'plateNumber', label: t('vehicles.fields.plateNumber'), width: 120, fixed: 'left' },
    // The review status beside the plate: seen at 1440 px without scrolling.
    {
      prop: 'status',
      label: p('status'),
      width: 100,
      render: (row) => <Tag color={privateCarStatusColor(row.status)}>{row.status ? t(`vehicles.privateCar.statuses.${row.status}`) : '--'}</Tag>,
    },
    { prop: 'vin', label: t('vehicles.fields.vin'), width: 190 },
    { key: 'brandModel', label: t('vehicles.fields.brandModel'), width: 170, render: (row) => [row.brand, row.model].filter(Boolean).join(' / ') || '--' },
    { prop: 'energyType', label: t('vehicles.fields.energyType'), width: 110, formatter: (row) => codeLabel(t, 'energyTypes', row.energyType) },
    { prop: 'orgName', label: t('vehicles.fields.org'), width: 160, showOverflowTooltip: true },
    { prop: 'ownerName', label: p('ownerName'), width: 100 },
    { prop: 'ownerPhone', label: p('ownerPhone'), width: 130 },
    { prop: 'allowanceFenPerKm', label: p('allowance'), width: 140, align: 'right', formatter: (row) => (row.allowanceFenPerKm / 100).toFixed(2) },
    { prop: 'rejectReason', label: p('rejectReason'), width: 160, showOverflowTooltip: true },
    { prop: 'createTime', label: t('vehicles.fields.createTime'), width: 170, formatter: (row) => formatTime(row.createTime) },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 130,
      fixed: 'right',
      render: (row) =>
        row.status === 'PENDING_REVIEW' ? (
          <Space size={0}>
            <Button type="link" size="small" onClick={() => void approve(row).catch(() => undefined)}>
              {p('approve')}
            </Button>
            <Button type="link" size="small" danger onClick={() => reject(row)}>
              {p('reject')}
            </Button>
          </Space>
        ) : (
          '--'
        ),
    },
  ];
  return (
    <ListPage<PrivateCar>
      testId="private-cars"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)} data-testid="private-car-add">
            {p('add')}
          </Button>
          <PrivateCarExportSlot query={list.query} />
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1800, ...list.tableProps }}
    >
      <PrivateCarDialog open={adding} onClose={() => setAdding(false)} />
    </ListPage>
  );
}
