import { Button, Form, InputNumber, Space, Table, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type {
  FormField,
  FormValues,
} from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { LoadErrorBanner } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { codeLabel, codeOptions } from '@/lib/codes';
import { toFen, yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import {
  useRepairConfig,
  useSaveItem,
  useSaveSupplier,
  useSaveThreshold,
  type RepairCatalogueItem,
  type RepairSupplier,
} from '../api/repairs';
import { ITEM_KINDS } from '../components/repair-labels';

const P = 'vehicleManagement:repair';
type T = (key: string) => string;

const supplierFields = (t: T): FormField[] => [
  {
    kind: 'text',
    name: 'name',
    label: t(`${P}.supplierName`),
    required: true,
    maxLength: 200,
    span: 12,
  },
  {
    kind: 'org',
    name: 'orgId',
    label: t(`${P}.org`),
    required: true,
    span: 12,
  },
  {
    kind: 'text',
    name: 'contactName',
    label: t(`${P}.contactName`),
    maxLength: 50,
    span: 12,
  },
  {
    kind: 'text',
    name: 'contactPhone',
    label: t(`${P}.contactPhone`),
    maxLength: 20,
    span: 12,
  },
  {
    kind: 'text',
    name: 'address',
    label: t(`${P}.address`),
    maxLength: 200,
    span: 24,
  },
  {
    kind: 'radio',
    name: 'enabled',
    label: t(`${P}.enabled`),
    options: [
      { value: 1, label: t(`${P}.yes`) },
      { value: 0, label: t(`${P}.no`) },
    ],
    initialValue: 1,
    span: 12,
  },
  {
    kind: 'textarea',
    name: 'remark',
    label: t(`${P}.remark`),
    maxLength: 200,
    span: 24,
  },
];

const itemFields = (
  t: (key: string, o?: Record<string, unknown>) => string,
): FormField[] => [
  {
    kind: 'text',
    name: 'name',
    label: t(`${P}.itemName`),
    required: true,
    maxLength: 200,
    span: 12,
  },
  {
    kind: 'select',
    name: 'kind',
    label: t(`${P}.itemKind`),
    required: true,
    options: codeOptions(t, `${P}.itemKinds`, ITEM_KINDS),
    span: 12,
  },
  {
    kind: 'text',
    name: 'partNo',
    label: t(`${P}.partNo`),
    maxLength: 200,
    span: 12,
  },
  {
    kind: 'text',
    name: 'unit',
    label: t(`${P}.unit`),
    maxLength: 20,
    span: 12,
  },
  {
    kind: 'money-fen',
    name: 'unitPriceFen',
    label: t(`${P}.unitPrice`),
    required: true,
    span: 12,
  },
  {
    kind: 'radio',
    name: 'enabled',
    label: t(`${P}.enabled`),
    options: [
      { value: 1, label: t(`${P}.yes`) },
      { value: 0, label: t(`${P}.no`) },
    ],
    initialValue: 1,
    span: 12,
  },
];

/** A supplier or catalogue item in its dialog (a new one when `record.id` is empty). */
function EditDialog({
  title,
  fields,
  record,
  onSave,
  onClose,
}: {
  title: string;
  fields: FormField[];
  record?: FormValues;
  onSave: (values: FormValues) => Promise<unknown>;
  onClose: () => void;
}) {
  const [form] = Form.useForm();
  const confirm = async () => {
    await form.validateFields();
    await onSave(
      toSubmitValues(fields, form.getFieldsValue(true) as FormValues),
    );
    onClose();
  };
  return (
    <AppDialog
      open={!!record}
      width={720}
      title={title}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <DynamicForm
        form={form}
        fields={fields}
        record={record}
        name="repair-config-form"
      />
    </AppDialog>
  );
}

/**
 * 维修配置 (orderConfig, as:maintain): the approval threshold (quotes above
 * it go through an org approval), the repair shops and the catalogue of
 * parts and labour with their unit prices.
 */
export default function OrderConfigPage() {
  const { t } = useTranslation();
  const config = useRepairConfig();
  const saveThreshold = useSaveThreshold();
  const saveSupplier = useSaveSupplier();
  const saveItem = useSaveItem();
  const [threshold, setThreshold] = useState<number | null>(null);
  const [supplier, setSupplier] = useState<FormValues>();
  const [item, setItem] = useState<FormValues>();
  const m = (key: string) => t(`${P}.${key}`);
  const sFields = useMemo(() => supplierFields(t), [t]);
  const iFields = useMemo(() => itemFields(t), [t]);
  useEffect(() => {
    if (config.data) setThreshold(config.data.approvalThresholdFen / 100);
  }, [config.data]);

  const onSupplier = async (values: FormValues) => {
    await saveSupplier.mutateAsync({
      id: String(supplier?.id ?? ''),
      orgId: String(values.orgId ?? ''),
      orgName: '',
      name: String(values.name ?? ''),
      address: String(values.address ?? ''),
      contactName: String(values.contactName ?? ''),
      contactPhone: String(values.contactPhone ?? ''),
      enabled: Number(values.enabled ?? 1) === 1,
      remark: String(values.remark ?? ''),
    });
    toastSuccess(m('saved'));
  };
  const onItem = async (values: FormValues) => {
    await saveItem.mutateAsync({
      id: String(item?.id ?? ''),
      name: String(values.name ?? ''),
      kind: values.kind as RepairCatalogueItem['kind'],
      partNo: String(values.partNo ?? ''),
      unit: String(values.unit ?? ''),
      unitPriceFen: Number(values.unitPriceFen ?? 0),
      enabled: Number(values.enabled ?? 1) === 1,
    });
    toastSuccess(m('saved'));
  };

  return (
    <Space
      direction="vertical"
      style={{ width: '100%' }}
      data-testid="repair-config"
    >
      <LoadErrorBanner
        error={config.error}
        onRetry={() => void config.refetch()}
      />
      <ModuleCard title={m('threshold')}>
        <Space>
          <InputNumber
            min={0}
            max={10_000_000}
            precision={2}
            value={threshold}
            onChange={setThreshold}
            data-testid="repair-threshold"
          />
          <Button
            type="primary"
            loading={saveThreshold.isPending}
            data-testid="repair-threshold-save"
            onClick={async () => {
              await saveThreshold.mutateAsync({
                approvalThresholdFen: toFen(threshold ?? 0),
              });
              toastSuccess(m('saved'));
            }}
          >
            {m('save')}
          </Button>
          <Typography.Text type="secondary">
            {m('thresholdHint')}
          </Typography.Text>
        </Space>
      </ModuleCard>
      <ModuleCard
        title={m('suppliers')}
        extra={
          <Button
            onClick={() => setSupplier({ id: '', enabled: 1 })}
            data-testid="repair-add-supplier"
          >
            {m('addSupplier')}
          </Button>
        }
      >
        <Table<RepairSupplier>
          size="small"
          rowKey="id"
          pagination={false}
          loading={config.isFetching}
          dataSource={config.data?.suppliers ?? []}
          data-testid="repair-suppliers"
          columns={[
            { title: m('supplierName'), dataIndex: 'name' },
            { title: m('org'), dataIndex: 'orgName' },
            { title: m('contactName'), dataIndex: 'contactName' },
            { title: m('contactPhone'), dataIndex: 'contactPhone' },
            { title: m('address'), dataIndex: 'address' },
            {
              title: m('enabled'),
              render: (_, row) => (row.enabled ? m('yes') : m('no')),
            },
            {
              title: t('vehicleManagement:common.actions'),
              render: (_, row) => (
                <Button
                  type="link"
                  size="small"
                  onClick={() =>
                    setSupplier({ ...row, enabled: row.enabled ? 1 : 0 })
                  }
                >
                  {t('vehicleManagement:common.edit')}
                </Button>
              ),
            },
          ]}
        />
      </ModuleCard>
      <ModuleCard
        title={m('catalogue')}
        extra={
          <Button
            onClick={() => setItem({ id: '', enabled: 1 })}
            data-testid="repair-add-item"
          >
            {m('addCatalogueItem')}
          </Button>
        }
      >
        <Table<RepairCatalogueItem>
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={config.data?.items ?? []}
          data-testid="repair-catalogue"
          columns={[
            { title: m('itemName'), dataIndex: 'name' },
            {
              title: m('itemKind'),
              render: (_, row) => codeLabel(t, `${P}.itemKinds`, row.kind),
            },
            { title: m('partNo'), dataIndex: 'partNo' },
            { title: m('unit'), dataIndex: 'unit' },
            {
              title: m('unitPrice'),
              align: 'right',
              render: (_, row) => yuan(row.unitPriceFen),
            },
            {
              title: m('enabled'),
              render: (_, row) => (row.enabled ? m('yes') : m('no')),
            },
            {
              title: t('vehicleManagement:common.actions'),
              render: (_, row) => (
                <Button
                  type="link"
                  size="small"
                  onClick={() =>
                    setItem({ ...row, enabled: row.enabled ? 1 : 0 })
                  }
                >
                  {t('vehicleManagement:common.edit')}
                </Button>
              ),
            },
          ]}
        />
      </ModuleCard>
      <EditDialog
        title={m('suppliers')}
        fields={sFields}
        record={supplier}
        onSave={onSupplier}
        onClose={() => setSupplier(undefined)}
      />
      <EditDialog
        title={m('catalogue')}
        fields={iFields}
        record={item}
        onSave={onItem}
        onClose={() => setItem(undefined)}
      />
    </Space>
  );
}
