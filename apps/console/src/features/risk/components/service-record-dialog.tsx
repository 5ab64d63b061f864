/** 新增客服记录 / 编辑客服记录 on the dynamic form. */
import { Form } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { toastSuccess } from '@/lib/notify';
import { useSaveServiceRecord, type ServiceRecord } from '../api/service-records';
import { serviceRecordBody, serviceRecordFields, serviceRecordValues } from './service-record-form';

export interface ServiceRecordDialogProps {
  open: boolean;
  /** The record edited; none: a new one. */
  record?: ServiceRecord;
  onClose: () => void;
}

export function ServiceRecordDialog({ open, record, onClose }: ServiceRecordDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(() => serviceRecordFields(t, record), [t, record]);
  const values = useMemo(() => serviceRecordValues(record), [record]);
  const save = useSaveServiceRecord();

  const confirm = async () => {
    await form.validateFields();
    const body = serviceRecordBody(toSubmitValues(fields, form.getFieldsValue(true) as FormValues), record);
    await save.mutateAsync({ id: record?.id, body });
    toastSuccess(t('risk:common.saved'));
    onClose();
  };

  return (
    <AppDialog open={open} width={760} title={t(record ? 'risk:service.editTitle' : 'risk:service.addTitle')} onCancel={onClose} onConfirm={confirm} destroyOnHidden>
      <DynamicForm form={form} fields={fields} record={values} name="service-record" />
    </AppDialog>
  );
}
