/** 保养计划: the plans with their intervals and windows, added, edited and deleted on the dynamic form. */
import { Button, Drawer, Form, Popconfirm, Space, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { toastSuccess } from '@/lib/notify';
import {
  useDeletePlan,
  usePlans,
  useSavePlan,
  type Plan,
} from '../api/maintenance';
import { kmText } from './labels';
import { planBody, planFields, planRecord } from './plan-form';

function PlanDialog({
  editing,
  onClose,
}: {
  editing: { plan?: Plan } | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(() => planFields(t), [t]);
  const record = useMemo(() => planRecord(editing?.plan), [editing]);
  const save = useSavePlan();
  const confirm = async () => {
    await form.validateFields();
    const raw = form.getFieldsValue(true) as FormValues;
    await save.mutateAsync({
      id: editing?.plan?.id,
      body: planBody(toSubmitValues(fields, raw)),
    });
    toastSuccess(t('vehicleManagement:common.saved'));
    onClose();
  };
  return (
    <AppDialog
      open={!!editing}
      width={760}
      title={t(
        editing?.plan
          ? 'vehicleManagement:plan.editTitle'
          : 'vehicleManagement:plan.addTitle',
      )}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <DynamicForm
        form={form}
        fields={fields}
        record={record}
        name="maintenance-plan"
      />
    </AppDialog>
  );
}

/** "10,000 公里 / 6 个月": the parts a plan has. */
function pair(km: number, other: number, unit: string, kmUnit: string) {
  return (
    [km ? `${kmText(km)} ${kmUnit}` : '', other ? `${other} ${unit}` : '']
      .filter(Boolean)
      .join(' / ') || '--'
  );
}

export function PlansDrawer({
  open,
  onClose,
}: {
  open: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const plans = usePlans();
  const remove = useDeletePlan();
  const [editing, setEditing] = useState<{ plan?: Plan } | null>(null);
  const p = (key: string) => t(`vehicleManagement:plan.${key}`);
  const c = (key: string) => t(`vehicleManagement:common.${key}`);
  return (
    <Drawer
      open={open}
      size={1000}
      title={t('vehicleManagement:reminder.plans')}
      onClose={onClose}
      extra={
        <Button
          type="primary"
          onClick={() => setEditing({})}
          data-testid="plan-add"
        >
          {p('add')}
        </Button>
      }
    >
      <LoadErrorBanner
        error={plans.error}
        onRetry={() => void plans.refetch()}
      />
      <Table<Plan>
        size="small"
        rowKey="id"
        loading={plans.isFetching}
        pagination={false}
        dataSource={plans.data?.list ?? []}
        data-testid="plan-list"
        columns={[
          { title: p('name'), dataIndex: 'name' },
          {
            title: p('kind'),
            dataIndex: 'kind',
            render: (v: string | null) =>
              codeLabel(t, 'vehicleManagement:reminder.kinds', v) || '--',
          },
          { title: p('org'), dataIndex: 'orgName' },
          {
            title: p('vehicleModel'),
            dataIndex: 'vehicleModel',
            render: (v: string) => v || p('allModels'),
          },
          {
            title: p('interval'),
            key: 'interval',
            render: (_, row) =>
              pair(row.intervalM, row.intervalMonths, c('months'), c('km')),
          },
          {
            title: p('window'),
            key: 'window',
            render: (_, row) =>
              pair(row.soonM, row.soonDays, c('days'), c('km')),
          },
          {
            title: p('vehicleCount'),
            dataIndex: 'vehicleCount',
            align: 'right',
          },
          {
            title: c('actions'),
            key: 'actions',
            render: (_, row) => (
              <Space size={0}>
                <Button
                  type="link"
                  size="small"
                  onClick={() => setEditing({ plan: row })}
                  data-testid="plan-edit"
                >
                  {c('edit')}
                </Button>
                <Popconfirm
                  title={p('confirmDelete')}
                  onConfirm={async () => {
                    await remove.mutateAsync(row.id);
                    toastSuccess(c('deleted'));
                  }}
                >
                  <Button
                    type="link"
                    size="small"
                    danger
                    data-testid="plan-delete"
                  >
                    {c('delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <PlanDialog editing={editing} onClose={() => setEditing(null)} />
    </Drawer>
  );
}
