import { Form, Input, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { orgOptions, useOrgTree } from '../api/orgs';
import { useCreateRole, usePermissionTree, useRole, useUpdateRole } from '../api/roles';
import { DataScopeField } from '../components/data-scope-field';
import { dataScopeBody, dataScopeError, dataScopeValue, SCOPE_SELF, type DataScopeValue } from '../components/data-scope';
import { PermissionTreeField } from '../components/permission-tree-field';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface RoleValues {
  name: string;
  description?: string;
  permissionValues: string[];
  scope: DataScopeValue;
}

/** Create or edit a role: name, description, function permissions (catalogue tree), data scope. */
export function RoleFormDialog({ open, roleId, onClose }: { open: boolean; roleId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<RoleValues>();
  const catalogue = usePermissionTree(open);
  const orgs = useOrgTree({}, open);
  const role = useRole(open ? roleId : undefined);
  const create = useCreateRole();
  const update = useUpdateRole();
  const loadingRole = !!roleId && !role.data;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (!roleId) form.setFieldsValue({ permissionValues: [], scope: { kind: SCOPE_SELF, orgIds: [] } });
    else if (role.data)
      form.setFieldsValue({
        name: role.data.name,
        description: role.data.description,
        permissionValues: role.data.permissionValues,
        scope: dataScopeValue(role.data.dataScope, role.data.dataScopeOrgIds),
      });
  }, [open, roleId, role.data, form]);

  const submit = async () => {
    // A field in error may sit above the fold of the dialog: scroll to the first one.
    const v = await form.validateFields().catch((error: { errorFields?: { name: (string | number)[] }[] }) => {
      const first = error.errorFields?.[0];
      if (first) form.scrollToField(first.name, { block: 'center', behavior: 'smooth' });
      throw error;
    });
    const body = { name: v.name, description: v.description ?? '', permissionValues: v.permissionValues ?? [], ...dataScopeBody(v.scope), status: null };
    if (roleId) await update.mutateAsync({ id: roleId, body });
    else await create.mutateAsync(body);
    toastSuccess(t('systemSettings.saved'));
    onClose();
  };

  return (
    <AppDialog open={open} width={680} title={t(roleId ? 'systemSettings.role.edit' : 'systemSettings.role.add')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Spin spinning={loadingRole}>
        <Form form={form} name="roleForm" layout="horizontal" labelCol={FORM_LABEL_COL} data-testid="role-form">
          <Form.Item name="name" label={t('systemSettings.role.name')} normalize={trimInput} rules={[{ required: true, message: t('systemSettings.role.nameRequired') }]}>
            <Input maxLength={30} placeholder={t('common.pleaseInput')} />
          </Form.Item>
          <Form.Item name="description" label={t('systemSettings.role.description')}>
            <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} placeholder={t('common.pleaseInput')} />
          </Form.Item>
          <Form.Item
            name="permissionValues"
            label={t('systemSettings.role.permissions')}
            required
            rules={[{ validator: (_, value?: string[]) => (value?.length ? Promise.resolve() : Promise.reject(new Error(t('systemSettings.role.permissionsRequired')))) }]}
          >
            <PermissionTreeField catalogue={catalogue.data} loading={catalogue.isLoading} />
          </Form.Item>
          <Form.Item
            name="scope"
            label={t('systemSettings.scope.label')}
            required
            rules={[{ validator: (_, value: DataScopeValue) => { const e = dataScopeError(value, true); return e ? Promise.reject(new Error(t(e))) : Promise.resolve(); } }]}
          >
            <DataScopeField orgs={orgOptions(orgs.data ?? [])} />
          </Form.Item>
        </Form>
      </Spin>
    </AppDialog>
  );
}
