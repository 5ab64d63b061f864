import { Form, Input, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { UploadControl, type FileItem } from '@/components/upload/upload-control';
import { uploaderFor } from '@/lib/files';
import { toastSuccess } from '@/lib/notify';
import { useHandleAlarms } from '../api/alarms';
import { ATTACHMENT_PURPOSE, ATTACHMENT_RULES, fileRefsOf } from './attachments';
import { HANDLE_METHODS, REMARK_MAX, type AlarmHandleMethod } from './labels';

/** Closing one or a batch of alarms: HANDLED (how) or FALSE_ALARM (why). */
export type Closing = 'HANDLED' | 'FALSE_ALARM';

export interface HandleDialogProps {
  /** What the dialog closes the alarms as; none: closed. */
  closing?: Closing;
  alarmIds: string[];
  onClose: () => void;
  onDone?: () => void;
}

interface Values {
  handleMethod?: AlarmHandleMethod;
  remark?: string;
  attachments?: FileItem[];
}

/** 处理 needs the handle method; 误报 needs its reason (请填写误报原因). */
export function HandleDialog({ closing, alarmIds, onClose, onDone }: HandleDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const handle = useHandleAlarms();
  const open = !!closing;
  const dismissing = closing === 'FALSE_ALARM';
  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);

  const confirm = async () => {
    if (busy) throw new Error('uploading');
    const values = await form.validateFields();
    await handle.mutateAsync({
      alarmIds,
      status: closing,
      handleMethod: dismissing ? undefined : values.handleMethod,
      remark: values.remark?.trim() ?? '',
      attachments: fileRefsOf(values.attachments),
    });
    toastSuccess(t('risk:action.done'));
    onDone?.();
    onClose();
  };

  return (
    <AppDialog open={open} title={t(dismissing ? 'risk:handle.falseTitle' : 'risk:handle.title')} width={560} onCancel={onClose} onConfirm={confirm} destroyOnHidden>
      <p data-testid="handle-count">{t('risk:handle.count', { n: alarmIds.length })}</p>
      <Form form={form} layout="vertical" name="alarm-handle">
        {!dismissing && (
          <Form.Item name="handleMethod" label={t('risk:fields.handleMethod')} rules={[{ required: true, message: t('risk:handle.methodRequired') }]}>
            <Select options={HANDLE_METHODS.map((m) => ({ value: m, label: t(`risk:method.${m}`) }))} placeholder={t('risk:handle.methodRequired')} data-testid="handle-method" />
          </Form.Item>
        )}
        <Form.Item
          name="remark"
          label={t(dismissing ? 'risk:handle.reason' : 'risk:fields.remark')}
          rules={[
            ...(dismissing ? [{ required: true, whitespace: true, message: t('risk:handle.reasonRequired') }] : []),
            { max: REMARK_MAX, message: t('risk:handle.remarkTooLong') },
          ]}
        >
          <Input.TextArea rows={3} maxLength={REMARK_MAX} showCount placeholder={t('risk:handle.remarkPlaceholder')} data-testid="handle-remark" />
        </Form.Item>
        <Form.Item name="attachments" label={t('risk:fields.attachments')}>
          <UploadControl upload={uploaderFor(ATTACHMENT_PURPOSE)} {...ATTACHMENT_RULES} pictureCard onBusyChange={setBusy} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
