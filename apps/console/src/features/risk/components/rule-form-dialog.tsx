import { Form } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { toastSuccess } from '@/lib/notify';
import { useCreateRule, useUpdateRule, type AlarmRule } from '../api/rules';
import { ruleBody, ruleFields, ruleRecord } from './rule-form';

export interface RuleFormDialogProps {
  open: boolean;
  /** The rule edited; none: a new one. */
  rule?: AlarmRule;
  onClose: () => void;
}

/** 新增规则 / 编辑规则 on the dynamic form: the kind's own parameters show as the kind is chosen. */
export function RuleFormDialog({ open, rule, onClose }: RuleFormDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const editing = !!rule;
  const fields = useMemo(() => ruleFields(t, editing), [t, editing]);
  const record = useMemo(() => ruleRecord(rule), [rule]);
  const create = useCreateRule();
  const update = useUpdateRule();

  const confirm = async () => {
    await form.validateFields();
    const body = ruleBody(toSubmitValues(fields, form.getFieldsValue(true) as FormValues));
    if (rule) await update.mutateAsync({ ...body, id: rule.id });
    else await create.mutateAsync(body);
    toastSuccess(t('risk:common.saved'));
    onClose();
  };

  return (
    <AppDialog open={open} width={720} title={t(editing ? 'risk:rules.editTitle' : 'risk:rules.addTitle')} onCancel={onClose} onConfirm={confirm} destroyOnHidden>
      <DynamicForm form={form} fields={fields} record={record} name="alarm-rule" />
    </AppDialog>
  );
}
