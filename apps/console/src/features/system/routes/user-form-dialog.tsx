import { Form, Input, Select, Spin, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { orgOptions, useOrgTree } from '../api/orgs';
import { useRoles } from '../api/roles';
import { useCreateUser, useUpdateUser, useUserDetail } from '../api/users';
import { DataScopeField } from '../components/data-scope-field';
import { dataScopeError, dataScopeValue, SCOPE_FROM_ROLES, type DataScopeValue } from '../components/data-scope';
import { isValidPhone, userCreateBody, userFormRules, userUpdateBody, type UserFormValues } from '../components/user-form';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** The role picker lists this many roles (the server's largest page). */
const ROLE_PICKER_SIZE = 100;

/** Add a user (name, account, phone, org, roles, data scope, initial password) or edit one. */
export function UserFormDialog({ open, userId, onClose }: { open: boolean; userId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<UserFormValues>();
  const rules = userFormRules(t);
  const orgs = useOrgTree({}, open);
  const roles = useRoles({ page: 1, size: ROLE_PICKER_SIZE }, open);
  const user = useUserDetail(open ? userId : undefined);
  const create = useCreateUser();
  const update = useUpdateUser();
  const editing = !!userId;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (!userId) form.setFieldsValue({ roleIds: [], scope: { kind: SCOPE_FROM_ROLES, orgIds: [] } });
    else if (user.data)
      form.setFieldsValue({
        name: user.data.name,
        userName: user.data.userName,
        phone: user.data.phone,
        orgId: user.data.orgId,
        roleIds: user.data.roleIds,
        scope: dataScopeValue(user.data.dataScope, user.data.dataScopeOrgIds),
      });
  }, [open, userId, user.data, form]);

  const submit = async () => {
    const v = await form.validateFields();
    if (userId) {
      await update.mutateAsync({ id: userId, body: userUpdateBody(v, user.data?.phone) });
      toastSuccess(t('systemSettings.saved'));
    } else {
      const created = await create.mutateAsync(userCreateBody(v));
      // An existing person was added: they pick this enterprise when they next sign in.
      toastSuccess(t(created.linked ? 'systemSettings.user.linked' : 'systemSettings.saved', { name: created.name }));
    }
    onClose();
  };

  const orgTree = orgOptions(orgs.data ?? []);
  return (
    <AppDialog open={open} width={640} title={t(editing ? 'systemSettings.user.edit' : 'systemSettings.user.add')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Spin spinning={editing && !user.data}>
        <Form form={form} name="userForm" layout="horizontal" labelCol={FORM_LABEL_COL} data-testid="user-form">
          <Form.Item name="name" label={t('systemSettings.user.name')} normalize={trimInput} rules={rules.name}>
            <Input maxLength={32} placeholder={t('common.pleaseInput')} />
          </Form.Item>
          <Form.Item name="userName" label={t('systemSettings.user.userName')} normalize={trimInput} rules={editing ? [] : rules.userName}>
            <Input maxLength={32} disabled={editing} placeholder={t('login.usernameRequired')} />
          </Form.Item>
          <Form.Item
            name="phone"
            label={t('systemSettings.user.phone')}
            normalize={trimInput}
            // Editing shows the masked phone; typing a new one changes the sign-in phone too.
            rules={editing ? [{ validator: (_, v?: string) => (!v || v === user.data?.phone || isValidPhone(v) ? Promise.resolve() : Promise.reject(new Error(t('login.phoneInvalid')))) }] : rules.phone}
            extra={editing ? t('systemSettings.user.phoneChangeHint') : t('systemSettings.user.phoneLinkHint')}
            validateTrigger="onChange"
          >
            <Input maxLength={11} placeholder={t('login.phoneRequired')} data-testid="user-phone" />
          </Form.Item>
          <Form.Item name="orgId" label={t('systemSettings.user.org')} rules={rules.orgId}>
            <TreeSelect
              allowClear
              treeDefaultExpandAll
              showSearch={{ treeNodeFilterProp: 'title' }}
              treeData={orgTree}
              placeholder={t('common.pleaseSelect')}
              data-testid="user-org"
            />
          </Form.Item>
          <Form.Item name="roleIds" label={t('systemSettings.user.roles')} rules={rules.roleIds}>
            <Select
              mode="multiple"
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              loading={roles.isLoading}
              options={(roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name }))}
              placeholder={t('common.pleaseSelect')}
              data-testid="user-roles"
            />
          </Form.Item>
          <Form.Item
            name="scope"
            label={t('systemSettings.scope.label')}
            rules={[{ validator: (_, value: DataScopeValue) => { const e = dataScopeError(value, false); return e ? Promise.reject(new Error(t(e))) : Promise.resolve(); } }]}
          >
            <DataScopeField orgs={orgTree} allowFromRoles />
          </Form.Item>
          {!editing && (
            <Form.Item name="password" label={t('systemSettings.user.password')} rules={rules.password} extra={t('systemSettings.user.passwordHint')}>
              <Input.Password maxLength={20} autoComplete="new-password" placeholder={t('common.pleaseInput')} />
            </Form.Item>
          )}
        </Form>
      </Spin>
    </AppDialog>
  );
}
