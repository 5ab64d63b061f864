import { Alert, DatePicker, Form, Input } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { useEndUsageRecord, type UsageRecord } from '../api/usage-records';
import { showServerErrors } from '@/lib/server-errors';
import { USAGE_LIMITS } from './usage-form';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface EndValues {
  endTime?: Dayjs | null;
  remark?: string;
}

/** An end time may not lie in the future; an active record's may not precede its start (the service's rules). */
export function endTimeProblem(record: Pick<UsageRecord, 'status' | 'startTime'>, endTime: Dayjs | null | undefined, now: Dayjs = dayjs()): 'future' | 'beforeStart' | undefined {
  if (!endTime) return undefined;
  if (endTime.isAfter(now.add(1, 'minute'))) return 'future';
  if (record.status === 'ACTIVE' && record.startTime && endTime.isBefore(dayjs(record.startTime))) return 'beforeStart';
  return undefined;
}

/**
 * 结束 a usage record, after confirmation: when it ended (empty: now) and a
 * remark. The vehicle is then free for a new record; an ended record never changes.
 */
export function UsageEndDialog({ record, onClose }: { record: UsageRecord | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<EndValues>();
  const end = useEndUsageRecord();
  const submit = async () => {
    if (!record) return;
    const values = await form.validateFields();
    try {
      await end.mutateAsync({ id: record.id, body: { endTime: values.endTime ? values.endTime.format('YYYY-MM-DD HH:mm:ss') : '', remark: values.remark ?? '' } });
    } catch (err) {
      showServerErrors(form, err, { toField: (f) => (f === 'endTime' || f === 'remark' ? f : undefined) });
      throw err;
    }
    toastSuccess(t('vehicles.usage.ended'));
    onClose();
  };
  return (
    <AppDialog
      open={!!record}
      width={650}
      title={t('vehicles.usage.endTitle')}
      confirmText={t('vehicles.usage.endConfirmButton')}
      onCancel={onClose}
      onConfirm={submit}
      destroyOnHidden
    >
      <div data-testid="usage-end-dialog">
        <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={t('vehicles.usage.endConfirm', { plate: record?.plateNumber ?? '', contract: record?.contractNo ?? '' })} />
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} preserve={false}>
          <Form.Item
            name="endTime"
            label={t('vehicles.usage.endedAt')}
            extra={t('vehicles.usage.endedAtHint')}
            rules={[
              {
                validator: (_, v: Dayjs | null | undefined) => {
                  const problem = record ? endTimeProblem(record, v) : undefined;
                  return problem ? Promise.reject(new Error(t(problem === 'future' ? 'vehicles.usage.rules.endInFuture' : 'vehicles.usage.rules.endBeforeStart'))) : Promise.resolve();
                },
              },
            ]}
          >
            <DatePicker showTime style={{ width: '100%' }} disabledDate={(d) => d.isAfter(dayjs(), 'day')} placeholder={t('vehicles.usage.endedAtHint')} />
          </Form.Item>
          <Form.Item name="remark" label={t('vehicles.fields.remark')} normalize={trimInput} rules={[{ max: USAGE_LIMITS.remark, message: t('vehicles.usage.rules.tooLong', { label: t('vehicles.fields.remark'), max: USAGE_LIMITS.remark }) }]}>
            <Input.TextArea maxLength={USAGE_LIMITS.remark} autoSize={{ minRows: 2, maxRows: 4 }} placeholder={t('common.pleaseInput')} />
          </Form.Item>
        </Form>
      </div>
    </AppDialog>
  );
}
