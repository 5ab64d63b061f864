import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Form, Input, Select, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { useUser } from '@/lib/auth';
import { toastSuccess } from '@/lib/notify';
import { searchMembers, useAssignAlarms } from '../api/alarms';
import { REMARK_MAX } from './labels';

/** Typing in the picker searches again after this pause. */
const SEARCH_DEBOUNCE_MS = 300;

export interface AssignDialogProps {
  open: boolean;
  alarmIds: string[];
  onClose: () => void;
  onDone?: () => void;
}

interface Values {
  assigneeId?: string;
  remark?: string;
}

/** Assigns alarms to a member of the enterprise (or to the caller: 指派给我). */
export function AssignDialog({ open, alarmIds, onClose, onDone }: AssignDialogProps) {
  const { t } = useTranslation();
  const { data: me } = useUser();
  const [form] = Form.useForm<Values>();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  const assign = useAssignAlarms();
  useEffect(() => {
    if (open) {
      form.resetFields();
      setTyped('');
      setKeyword('');
    }
  }, [open, form]);
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(typed.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const members = useQuery({ queryKey: ['risk', 'members', keyword], queryFn: () => searchMembers(keyword), enabled: open, placeholderData: keepPreviousData, staleTime: 30_000 });
  // The caller is always offered, even when the member list is not theirs to read.
  const options = [...(me ? [{ value: me.id, label: me.name }] : []), ...(members.data ?? []).filter((m) => m.value !== me?.id)];

  const confirm = async () => {
    const values = await form.validateFields();
    await assign.mutateAsync({ alarmIds, assigneeId: values.assigneeId ?? '', remark: values.remark?.trim() ?? '' });
    toastSuccess(t('risk:action.done'));
    onDone?.();
    onClose();
  };

  return (
    <AppDialog open={open} title={t('risk:assign.title')} width={520} onCancel={onClose} onConfirm={confirm} destroyOnHidden>
      <p>{t('risk:handle.count', { n: alarmIds.length })}</p>
      <Form form={form} layout="vertical" name="alarm-assign">
        <Form.Item label={t('risk:assign.member')} required>
          <Space.Compact style={{ width: '100%' }}>
            <Form.Item name="assigneeId" noStyle rules={[{ required: true, message: t('risk:assign.memberRequired') }]}>
              <Select
                showSearch
                filterOption={false}
                onSearch={setTyped}
                options={options}
                loading={members.isFetching}
                placeholder={t('risk:assign.searchMember')}
                data-testid="assign-member"
              />
            </Form.Item>
            {me && (
              <Button onClick={() => form.setFieldsValue({ assigneeId: me.id })} data-testid="assign-me">
                {t('risk:action.assignToMe')}
              </Button>
            )}
          </Space.Compact>
        </Form.Item>
        <Form.Item name="remark" label={t('risk:fields.remark')} rules={[{ max: REMARK_MAX, message: t('risk:handle.remarkTooLong') }]}>
          <Input.TextArea rows={3} maxLength={REMARK_MAX} showCount placeholder={t('risk:handle.remarkPlaceholder')} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
