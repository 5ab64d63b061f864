import { Form, Input, InputNumber, Switch, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { isRootOrg, orgOptions, useCreateOrg, useOrgServeAreas, useSetOrgServeAreas, useUpdateOrg, type OrgNode } from '../api/orgs';
import { ORG_CODE_PATTERN } from '../components/org-form';
import { ServeAreaField } from '../components/serve-area-field';
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
  isCompany?: boolean;
  /** GB/T 2260 city codes the organisation serves. */
  serveAreas?: string[];
}

/**
 * Add or edit an organisation: parent (new only), name, code, sort, whether it
 * is a company of its own (the root, the enterprise itself, always is) and the
 * cities it serves (服务区域), which make it a serve organisation.
 */
export function OrgFormDialog({ open, onClose, tree, editing, parentId }: OrgFormDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<OrgValues>();
  const create = useCreateOrg();
  const update = useUpdateOrg();
  const setServeAreas = useSetOrgServeAreas();
  const served = useOrgServeAreas(open ? editing?.id : undefined);
  const root = !!editing && isRootOrg(editing);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      editing ? { name: editing.name, orgCode: editing.orgCode, sort: editing.sort, isCompany: editing.isCompany, serveAreas: [] } : { parentId, sort: 0, isCompany: false, serveAreas: [] },
    );
  }, [open, editing, parentId, form]);

  useEffect(() => {
    if (open && served.data) form.setFieldValue('serveAreas', served.data.map((a) => a.cityCode));
  }, [open, served.data, form]);

  const submit = async () => {
    const v = await form.validateFields();
    const body = { name: v.name, orgCode: v.orgCode, sort: v.sort ?? 0, isCompany: !!v.isCompany };
    const saved = editing ? await update.mutateAsync({ id: editing.id, body }) : await create.mutateAsync({ ...body, parentId: v.parentId ?? '' });
    const cityCodes = v.serveAreas ?? [];
    // A new organisation serves nothing until told; an edited one is told what it serves now.
    if (editing || cityCodes.length) await setServeAreas.mutateAsync({ id: saved.id, cityCodes });
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
        <Form.Item name="isCompany" label={t('systemSettings.org.isCompany')} valuePropName="checked" extra={t(root ? 'systemSettings.org.rootIsCompany' : 'systemSettings.org.isCompanyHint')}>
          <Switch disabled={root} data-testid="org-is-company" />
        </Form.Item>
        <Form.Item name="serveAreas" label={t('systemSettings.org.serveAreas')} extra={t('systemSettings.org.serveAreasHint')}>
          <ServeAreaField disabled={!!editing && served.isPending} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
