import { Form, Input, InputNumber, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { orgOptions, useCreateOrg, useUpdateOrg, type OrgNode } from '../api/orgs';
import { ORG_CODE_PATTERN } from '../components/org-form';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

export interface OrgFormDialogProps {
  open: boolean;
  onClose: () => void;
  tree: OrgNode[];
  /** Editing this node; otherwise a new one. */
  editing?: OrgNode;
  /** A new node's preselected parent. */
  parentId?: string;
}

interface OrgValues {
  parentId?: string;
  name: string;
  orgCode: string;
  sort?: number | null;
}

/** Add or edit an organisation: parent (new only), name, code, sort. */
export function OrgFormDialog({ open, onClose, tree, editing, parentId }: OrgFormDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<OrgValues>();
  const create = useCreateOrg();
  const update = useUpdateOrg();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(editing ? { name: editing.name, orgCode: editing.orgCode, sort: editing.sort } : { parentId, sort: 0 });
  }, [open, editing, parentId, form]);

  const submit = async () => {
    const v = await form.validateFields();
    const body = { name: v.name, orgCode: v.orgCode, sort: v.sort ?? 0 };
    if (editing) await update.mutateAsync({ id: editing.id, body });
    else await create.mutateAsync({ ...body, parentId: v.parentId ?? '' });
    toastSuccess(t('systemSettings.saved'));
    onClose();
  };

  return (
    <AppDialog
      open={open}
      width={520}
      title={t(editing ? 'systemSettings.org.edit' : 'systemSettings.org.add')}
      onCancel={onClose}
      onConfirm={submit}
      destroyOnHidden
    >
      <Form form={form} name="orgForm" layout="horizontal" labelCol={FORM_LABEL_COL} data-testid="org-form">
        {!editing && (
          <Form.Item name="parentId" label={t('systemSettings.org.parent')} extra={t('systemSettings.org.parentHint')}>
            <TreeSelect allowClear treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgOptions(tree)} placeholder={t('systemSettings.org.topLevel')} data-testid="org-parent" />
          </Form.Item>
        )}
        <Form.Item name="name" label={t('systemSettings.org.name')} normalize={trimInput} rules={[{ required: true, message: t('systemSettings.org.nameRequired') }, { max: 50 }]}>
          <Input maxLength={50} placeholder={t('common.pleaseInput')} />
        </Form.Item>
        <Form.Item
          name="orgCode"
          label={t('systemSettings.org.code')}
          normalize={trimInput}
          rules={[
            { required: true, message: t('systemSettings.org.codeRequired') },
            { pattern: ORG_CODE_PATTERN, message: t('systemSettings.org.codeInvalid') },
          ]}
        >
          <Input maxLength={32} placeholder={t('common.pleaseInput')} />
        </Form.Item>
        <Form.Item name="sort" label={t('systemSettings.org.sort')}>
          <InputNumber min={0} max={10000} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
