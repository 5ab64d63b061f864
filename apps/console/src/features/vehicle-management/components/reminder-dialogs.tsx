/** 完成保养 on the dynamic form, and a reminder's detail with its service history. */
import {
  Descriptions,
  Drawer,
  Empty,
  Form,
  Spin,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import {
  useCompleteReminder,
  useReminderDetail,
  type Reminder,
  type ReminderDetail,
} from '../api/maintenance';
import { completeBody, completeFields } from './complete-form';
import { STATUS_COLORS, kmText } from './labels';

export interface CompleteDialogProps {
  reminder?: Reminder;
  /** Its plan's items. */
  planItems: readonly string[];
  onClose: () => void;
}

/** The next cycle as the success message names it: its due reading and/or date. */
function nextText(next: Reminder, t: (key: string) => string): string {
  const parts = [
    next.dueOdometerM
      ? `${kmText(next.dueOdometerM)} ${t('vehicleManagement:common.km')}`
      : '',
    formatTime(next.dueTime, '{y}-{m}-{d}'),
  ];
  return (
    parts.filter(Boolean).join(' / ') ||
    t('vehicleManagement:complete.nextNone')
  );
}

export function CompleteDialog({
  reminder,
  planItems,
  onClose,
}: CompleteDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(
    () => completeFields(t, reminder, planItems),
    [t, reminder, planItems],
  );
  const complete = useCompleteReminder();

  const confirm = async () => {
    if (!reminder) return;
    await form.validateFields();
    const raw = form.getFieldsValue(true) as FormValues;
    const answer = await complete.mutateAsync({
      id: reminder.id,
      body: completeBody(toSubmitValues(fields, raw)),
    });
    toastSuccess(
      t('vehicleManagement:complete.done', { next: nextText(answer.next, t) }),
    );
    onClose();
  };

  return (
    <AppDialog
      open={!!reminder}
      width={760}
      title={`${t('vehicleManagement:complete.title')} · ${reminder?.plateNumber ?? ''}`}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <DynamicForm form={form} fields={fields} name="maintenance-complete" />
    </AppDialog>
  );
}

function History({ detail }: { detail: ReminderDetail }) {
  const { t } = useTranslation();
  const r = (key: string) => t(`vehicleManagement:record.${key}`);
  if (detail.records.length === 0)
    return <Empty description={t('vehicleManagement:reminder.noHistory')} />;
  return (
    <Table
      size="small"
      rowKey="id"
      pagination={false}
      dataSource={detail.records}
      data-testid="maintenance-history"
      columns={[
        {
          title: r('serviceTime'),
          dataIndex: 'serviceTime',
          render: (v: string) => formatTime(v, '{y}-{m}-{d}'),
        },
        {
          title: r('odometer'),
          dataIndex: 'serviceOdometerM',
          align: 'right',
          render: (v: number) => kmText(v) || '--',
        },
        {
          title: r('supplier'),
          dataIndex: 'supplier',
          render: (v: string) => detailText(v),
        },
        {
          title: r('cost'),
          dataIndex: 'costFen',
          align: 'right',
          render: (v: number) => yuan(v),
        },
        {
          title: r('items'),
          dataIndex: 'items',
          render: (v: string[]) => detailText(v.join('，')),
        },
        {
          title: r('schedule'),
          dataIndex: 'schedule',
          render: (v: string | null) =>
            codeLabel(t, 'vehicleManagement:complete.schedules', v) || '--',
        },
        {
          title: r('operator'),
          dataIndex: 'operatorName',
          render: (v: string) => detailText(v),
        },
      ]}
    />
  );
}

export function ReminderDrawer({
  reminderId,
  onClose,
}: {
  reminderId?: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const detail = useReminderDetail(reminderId);
  const reminder = detail.data?.reminder;
  const m = (key: string) => t(`vehicleManagement:reminder.${key}`);
  return (
    <Drawer
      open={!!reminderId}
      size={900}
      title={m('detailTitle')}
      onClose={onClose}
      destroyOnHidden
    >
      <LoadErrorBanner
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
      {reminder && detail.data ? (
        <div data-testid="maintenance-detail">
          <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={m('plateNumber')}>
              {reminder.plateNumber}
            </Descriptions.Item>
            <Descriptions.Item label={m('plan')}>
              {reminder.planName}
            </Descriptions.Item>
            <Descriptions.Item label={m('status')}>
              {reminder.status ? (
                <Tag color={STATUS_COLORS[reminder.status]}>
                  {codeLabel(
                    t,
                    'vehicleManagement:reminder.statuses',
                    reminder.status,
                  )}
                </Tag>
              ) : (
                '-'
              )}
            </Descriptions.Item>
            <Descriptions.Item label={m('currentOdometer')}>
              {detailText(kmText(reminder.currentOdometerM))}
            </Descriptions.Item>
            <Descriptions.Item label={m('dueOdometer')}>
              {detailText(kmText(reminder.dueOdometerM))}
            </Descriptions.Item>
            <Descriptions.Item label={m('dueDate')}>
              {detailText(formatTime(reminder.dueTime, '{y}-{m}-{d}'))}
            </Descriptions.Item>
            <Descriptions.Item label={m('dailyMileage')}>
              {detailText(kmText(reminder.dailyMileageM))}
            </Descriptions.Item>
            <Descriptions.Item label={m('forecast')}>
              {detailText(formatTime(reminder.forecastDueTime, '{y}-{m}-{d}'))}
            </Descriptions.Item>
            <Descriptions.Item label={m('org')}>
              {detailText(reminder.orgName)}
            </Descriptions.Item>
          </Descriptions>
          <Typography.Title level={5}>{m('history')}</Typography.Title>
          <History detail={detail.data} />
        </div>
      ) : (
        <Spin spinning={detail.isFetching} />
      )}
    </Drawer>
  );
}
