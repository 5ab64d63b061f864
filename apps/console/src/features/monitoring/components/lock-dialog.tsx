import { Alert, Descriptions, Form, Input } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { ApiError, Code } from '@/lib/api-client';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import { useSendLockCommand, type LockAction, type LockCommand, type LockVehicle } from '../api/lock';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

export const REASON_MIN = 2;
export const REASON_MAX = 200;

/** What the list knows of the vehicle: the interlocks it can foresee (the server decides). */
export function foreseenRefusals(vehicle: Partial<Pick<LockVehicle, 'online' | 'speedKmh' | 'charging'>>): string[] {
  const out: string[] = [];
  if (vehicle.online === false) out.push('offline');
  if (vehicle.speedKmh !== null && vehicle.speedKmh !== undefined && vehicle.speedKmh > 0) out.push('moving');
  if (vehicle.charging) out.push('charging');
  return out;
}

export interface LockDialogProps {
  open: boolean;
  action: LockAction;
  vehicle?: Pick<LockVehicle, 'vehicleId' | 'plateNumber'> & Partial<LockVehicle>;
  onClose: () => void;
  onSent?: (command: LockCommand) => void;
}

/**
 * Lock or unlock one vehicle with a required reason. One Idempotency-Key per
 * opening: a double click or a retry after a lost answer sends one command.
 * The server's refusal (an interlock: offline, moving, charging) shows in the dialog.
 */
export function LockDialog({ open, action, vehicle, onClose, onSent }: LockDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason: string }>();
  const send = useSendLockCommand();
  const key = useRef(newIdempotencyKey());
  const [refusal, setRefusal] = useState('');

  useEffect(() => {
    if (!open) return;
    key.current = newIdempotencyKey();
    setRefusal('');
    form.resetFields();
  }, [open, form]);

  const submit = async () => {
    if (!vehicle) return;
    const reason = (await form.validateFields()).reason.trim();
    setRefusal('');
    try {
      const command = await send.mutateAsync({ vehicleId: vehicle.vehicleId, action, reason, idempotencyKey: key.current });
      toastSuccess(t(`monitoring:lock.sent.${action}`));
      onSent?.(command);
      onClose();
    } catch (err) {
      if (err instanceof ApiError) {
        const reasonError = err.fields.find((f) => f.field === 'reason');
        if (reasonError) form.setFields([{ name: 'reason', errors: [reasonError.message] }]);
        else setRefusal(err.code === Code.Validation || err.code === Code.Conflict ? err.serverMessage || err.message : err.message);
      }
      throw err;
    }
  };

  const foreseen = action === 'lock' && vehicle ? foreseenRefusals(vehicle) : [];
  return (
    <AppDialog open={open} width={520} title={t(`monitoring:lock.title.${action}`)} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <div data-testid="lock-dialog">
        <Descriptions size="small" column={1}>
          <Descriptions.Item label={t('monitoring:fields.plateNumber')}>{vehicle?.plateNumber}</Descriptions.Item>
        </Descriptions>
        {action === 'lock' && <Alert type="info" showIcon title={t('monitoring:lock.interlocks')} style={{ marginBottom: 12 }} />}
        {foreseen.length > 0 && (
          <Alert type="warning" showIcon title={foreseen.map((k) => t(`monitoring:lock.foreseen.${k}`)).join('；')} style={{ marginBottom: 12 }} data-testid="lock-foreseen" />
        )}
        {refusal && <Alert type="error" showIcon title={refusal} style={{ marginBottom: 12 }} data-testid="lock-refusal" />}
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="lockForm">
          <Form.Item
            name="reason"
            label={t('monitoring:lock.reason')}
            rules={[
              { required: true, whitespace: true, message: t('monitoring:lock.reasonRequired') },
              {
                // Counted without the spaces around it (the request is trimmed).
                validator: (_, value: string | undefined) => {
                  const n = (value ?? '').trim().length;
                  return n === 0 || (n >= REASON_MIN && n <= REASON_MAX) ? Promise.resolve() : Promise.reject(new Error(t('monitoring:lock.reasonLength', { min: REASON_MIN, max: REASON_MAX })));
                },
              },
            ]}
          >
            <Input.TextArea rows={3} maxLength={REASON_MAX} showCount placeholder={t('monitoring:lock.reasonPlaceholder')} data-testid="lock-reason" />
          </Form.Item>
        </Form>
      </div>
    </AppDialog>
  );
}
