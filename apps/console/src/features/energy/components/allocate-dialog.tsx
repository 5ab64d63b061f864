import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Descriptions, Form, Input, InputNumber, Select, Space } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toFen, yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { showServerErrors } from '@/lib/server-errors';
import { useAllocate, type ChargingAccount } from '../api/accounts';
import { AMOUNT_INPUT, amountRule } from './amount';

interface TargetValues {
  toAccountId?: string;
  amount?: number;
}

interface AllocateValues {
  targets: TargetValues[];
  remark?: string;
}

/** What is left of the source's available balance after the other rows of the form. */
export function remainingFen(availableFen: number, targets: readonly TargetValues[] | undefined, except: number): number {
  return (targets ?? []).reduce((left, target, i) => (i === except ? left : left - toFen(target?.amount)), availableFen);
}

export interface AllocateDialogProps {
  /** The parent account the money leaves. */
  account?: ChargingAccount;
  /** Its direct children. */
  childAccounts: ChargingAccount[];
  /** Preselected child (the row the user clicked from). */
  targetId?: string;
  onClose: () => void;
}

/**
 * 余额分配: moves money from an account to one or more of its direct children in
 * one all-or-nothing transfer. Each row's amount may not exceed what the other
 * rows leave; one Idempotency-Key per opening, so a retried submit moves once.
 */
export function AllocateDialog({ account, childAccounts, targetId, onClose }: AllocateDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<AllocateValues>();
  const allocate = useAllocate();
  const key = useRef(newIdempotencyKey());
  const open = !!account;

  useEffect(() => {
    if (!open) return;
    key.current = newIdempotencyKey();
    form.resetFields();
    form.setFieldsValue({ targets: [{ toAccountId: targetId ?? (childAccounts.length === 1 ? childAccounts[0].id : undefined) }] });
  }, [open, targetId, childAccounts, form]);

  const submit = async () => {
    if (!account) return;
    const values = await form.validateFields();
    try {
      await allocate.mutateAsync({
        accountId: account.id,
        idempotencyKey: key.current,
        body: {
          targets: values.targets.map((target) => ({ toAccountId: target.toAccountId ?? '', amountFen: toFen(target.amount) })),
          remark: values.remark ?? '',
        },
      });
      toastSuccess(t('energy:accounts.allocated'));
      onClose();
    } catch (err) {
      showServerErrors(form, err, { toField: (f) => (f.startsWith('targets[') ? undefined : f === 'remark' ? 'remark' : undefined) });
      throw err;
    }
  };

  const options = childAccounts.map((c) => ({ value: c.id, label: `${c.orgName}（${t('energy:accounts.available')} ${yuan(c.availableFen)}）` }));
  return (
    <AppDialog open={open} width={640} title={t('energy:accounts.allocateTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <div data-testid="allocate-dialog">
        <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
          <Descriptions.Item label={t('energy:accounts.from')}>{account?.orgName}</Descriptions.Item>
          <Descriptions.Item label={t('energy:accounts.available')}>{yuan(account?.availableFen)}</Descriptions.Item>
        </Descriptions>
        {childAccounts.length === 0 ? (
          <Alert type="info" showIcon title={t('energy:accounts.noChildren')} />
        ) : (
          <Form form={form} layout="vertical" name="allocateForm">
            <Form.List name="targets">
              {(rows, { add, remove }) => (
                <>
                  {rows.map((row) => (
                    <Space key={row.key} align="start" style={{ display: 'flex' }}>
                      <Form.Item name={[row.name, 'toAccountId']} label={t('energy:accounts.to')} rules={[{ required: true, message: t('energy:accounts.toRequired') }]} style={{ width: 300 }}>
                        <Select options={options} showSearch={{ optionFilterProp: 'label' }} placeholder={t('common.pleaseSelect')} data-testid="allocate-target" />
                      </Form.Item>
                      <Form.Item
                        name={[row.name, 'amount']}
                        label={t('energy:common.amountYuan')}
                        dependencies={[['targets']]}
                        rules={[amountRule(t, () => remainingFen(account?.availableFen ?? 0, form.getFieldValue('targets') as TargetValues[], row.name))]}
                        style={{ width: 200 }}
                      >
                        <InputNumber {...AMOUNT_INPUT} data-testid="allocate-amount" />
                      </Form.Item>
                      {rows.length > 1 && <MinusCircleOutlined style={{ marginTop: 38 }} onClick={() => remove(row.name)} />}
                    </Space>
                  ))}
                  {rows.length < childAccounts.length && (
                    <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({})} style={{ marginBottom: 16 }}>
                      {t('energy:accounts.addTarget')}
                    </Button>
                  )}
                </>
              )}
            </Form.List>
            <Form.Item name="remark" label={t('energy:common.remark')}>
              <Input.TextArea rows={2} maxLength={200} showCount placeholder={t('energy:common.remarkPlaceholder')} />
            </Form.Item>
          </Form>
        )}
      </div>
    </AppDialog>
  );
}
