import { PlusOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type FilterField, type FilterOption } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage } from '@/components/list-page';
import { type TableColumn } from '@/components/paginated-table';
import { SensitiveReveal } from '@/components/sensitive-reveal';
import { useHasPermission } from '@/lib/auth';
import { formatTime } from '@/lib/format';
import { SensitiveType } from '@/lib/mask';
import { SubjectKind } from '@/lib/sensitive';
import { toastSuccess } from '@/lib/notify';
import { orgOptions, STATUS_DISABLED, STATUS_ENABLED, useOrgTree, type OrgOption } from '../api/orgs';
import { useRoles } from '../api/roles';
import { listUsers, userQuery, USERS_KEY, useSetUserStatus, type User, type UserQuery } from '../api/users';
import { UserFormDialog } from './user-form-dialog';

export const USER_EDIT = 'as:sys:user:edit';
const ROLE_PICKER_SIZE = 100;

/** Filter options of the org tree; `title` too, which is what the tree select shows. */
const toFilterOptions = (nodes: OrgOption[]): FilterOption[] =>
  nodes.map((n) => Object.assign({ value: n.value, label: n.title, title: n.title }, n.children ? { children: toFilterOptions(n.children) } : {}));

/**
 * Users (console spec §2 userManagement, as:sys:user:getList): list filtered by name,
 * organisation, role and status, phones masked by the server; add, edit and
 * enable/disable need as:sys:user:edit. The hidden `addUser` route opens it with
 * the add dialog.
 */
export default function UserManagementPage({ startAdding = false }: { startAdding?: boolean }) {
  const { t } = useTranslation();
  const canEdit = useHasPermission(USER_EDIT);
  const orgs = useOrgTree({ includeDisabled: true });
  const canListRoles = useHasPermission('as:sys:role:getList');
  const roles = useRoles({ page: 1, size: ROLE_PICKER_SIZE }, canListRoles);
  const setStatus = useSetUserStatus();
  const [editing, setEditing] = useState<{ id?: string } | undefined>(startAdding && canEdit ? {} : undefined);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'name', label: t('systemSettings.user.nameOrAccount'), type: 'input', width: 180, maxlength: 32 },
      { prop: 'orgId', label: t('systemSettings.user.org'), type: 'selectTree', width: 200, options: toFilterOptions(orgOptions(orgs.data ?? [])) },
      { prop: 'roleId', label: t('systemSettings.user.role'), type: 'select', width: 180, options: (roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name })) },
      {
        prop: 'status',
        label: t('systemSettings.status'),
        type: 'select',
        width: 120,
        options: [STATUS_ENABLED, STATUS_DISABLED].map((s) => ({ value: s, label: t(`systemSettings.statuses.${s}`) })),
      },
    ],
    [t, orgs.data, roles.data],
  );
  const list = useListPage<User, UserQuery>({ fields, queryKey: [...USERS_KEY, 'list'], toQuery: userQuery, fetch: listUsers });

  const columns: TableColumn<User>[] = [
    { prop: 'name', label: t('systemSettings.user.name'), minWidth: 120 },
    { prop: 'userName', label: t('systemSettings.user.userName'), minWidth: 140 },
    {
      prop: 'phone',
      label: t('systemSettings.user.phone'),
      width: 160,
      // Masked by the server; the eye reveals it once per click and writes the audit.
      render: (u) => <SensitiveReveal masked={u.phone} sensitiveType={SensitiveType.Phone} subjectKind={SubjectKind.Member} subjectId={u.id} sourceModule="user" />,
    },
    { prop: 'orgName', label: t('systemSettings.user.org'), minWidth: 160 },
    { prop: 'roleNames', label: t('systemSettings.user.roles'), minWidth: 180, showOverflowTooltip: true },
    {
      prop: 'status',
      label: t('systemSettings.status'),
      width: 100,
      render: (u) => <Tag color={u.status === STATUS_ENABLED ? 'success' : 'default'}>{t(`systemSettings.statuses.${u.status}`, { defaultValue: String(u.status) })}</Tag>,
    },
    { prop: 'createTime', label: t('systemSettings.createTime'), width: 180, formatter: (u) => formatTime(u.createTime) },
    ...(canEdit
      ? [
          {
            prop: 'actions',
            label: t('systemSettings.actions'),
            width: 160,
            fixed: 'right' as const,
            render: (u: User) => (
              <Space size={4}>
                <Button type="link" size="small" onClick={() => setEditing({ id: u.id })}>
                  {t('systemSettings.edit')}
                </Button>
                <Popconfirm
                  title={t(u.status === STATUS_ENABLED ? 'systemSettings.user.disableConfirm' : 'systemSettings.user.enableConfirm', { name: u.name })}
                  onConfirm={async () => {
                    const status = u.status === STATUS_ENABLED ? STATUS_DISABLED : STATUS_ENABLED;
                    await setStatus.mutateAsync({ id: u.id, status });
                    toastSuccess(t(status === STATUS_ENABLED ? 'systemSettings.enabledDone' : 'systemSettings.disabledDone'));
                  }}
                >
                  <Button type="link" size="small" danger={u.status === STATUS_ENABLED}>
                    {t(u.status === STATUS_ENABLED ? 'systemSettings.disable' : 'systemSettings.enable')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <ListPage<User>
      testId="user-management"
      {...list.listProps}
      toolbar={
        canEdit && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})}>
            {t('systemSettings.user.add')}
          </Button>
        )
      }
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1200, ...list.tableProps }}
    >
      <UserFormDialog open={!!editing} userId={editing?.id} onClose={() => setEditing(undefined)} />
    </ListPage>
  );
}
