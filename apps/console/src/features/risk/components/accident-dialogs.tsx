/** 新增事故 / 编辑事故 on the dynamic form, and the accident's detail with its operation log. */
import { Descriptions, Drawer, Form, Spin, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { LoadErrorBanner } from '@/components/load-error';
import { OperationLogTable } from '@/components/operation-log-table';
import { detailText, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { ACCIDENTS_KEY, useAccidentDetail, useSaveAccident, type Accident, type AccidentDetail } from '../api/accidents';
import { accidentBody, accidentFields, accidentRecord } from './accident-form';

export interface AccidentFormDialogProps {
  open: boolean;
  /** The accident edited; none: a new one. */
  accident?: Accident;
  onClose: () => void;
}

export function AccidentFormDialog({ open, accident, onClose }: AccidentFormDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(() => accidentFields(t, accident), [t, accident]);
  const record = useMemo(() => accidentRecord(accident), [accident]);
  const save = useSaveAccident();

  const confirm = async () => {
    await form.validateFields();
    const raw = form.getFieldsValue(true) as FormValues;
    await save.mutateAsync({ id: accident?.id, body: accidentBody(toSubmitValues(fields, raw), raw, accident) });
    toastSuccess(t('risk:common.saved'));
    onClose();
  };

  return (
    <AppDialog open={open} width={900} title={t(accident ? 'risk:accident.editTitle' : 'risk:accident.addTitle')} onCancel={onClose} onConfirm={confirm} destroyOnHidden>
      <DynamicForm form={form} fields={fields} record={record} name="accident" />
    </AppDialog>
  );
}

/** The log came with the detail (newest first): the table pages through it here. */
function logPage(detail: AccidentDetail | undefined, page: number, size: number) {
  const logs = (detail?.logs ?? []).map((entry, i) => ({ ...entry, id: String(i) }));
  return Promise.resolve({ list: logs.slice((page - 1) * size, page * size), total: logs.length });
}

export function AccidentDrawer({ accidentId, onClose }: { accidentId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useAccidentDetail(accidentId);
  const accident = detail.data?.accident;
  const fields = useMemo(() => accidentFields(t, accident), [t, accident]);
  const record = useMemo(() => accidentRecord(accident), [accident]);
  return (
    <Drawer open={!!accidentId} size={960} title={t('risk:accident.detailTitle')} onClose={onClose} destroyOnHidden>
      <LoadErrorBanner error={detail.error} onRetry={() => void detail.refetch()} />
      {accident ? (
        <div data-testid="accident-detail">
          <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={t('risk:accident.caseNo')}>{detailText(accident.caseNo)}</Descriptions.Item>
            <Descriptions.Item label={t('risk:accident.org')}>{detailText(accident.orgName)}</Descriptions.Item>
            <Descriptions.Item label={t('risk:accident.createTime')}>{detailText(formatTime(accident.createTime))}</Descriptions.Item>
          </Descriptions>
          <DynamicForm mode="detail" fields={fields} record={record} />
          <Typography.Title level={5}>{t('risk:accident.opLog')}</Typography.Title>
          <OperationLogTable queryKey={[...ACCIDENTS_KEY, 'log', accident.id, detail.dataUpdatedAt]} fetch={(page, size) => logPage(detail.data, page, size)} />
        </div>
      ) : (
        <Spin spinning={detail.isFetching} />
      )}
    </Drawer>
  );
}
