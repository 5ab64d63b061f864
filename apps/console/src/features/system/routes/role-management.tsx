import { PlusOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage } from '@/components/list-page';
import { type TableColumn } from '@/components/paginated-table';
import { useHasPermission } from '@/lib/auth';
import { formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { STATUS_ENABLED } from '../api/orgs';
import { listRoles, roleQuery, ROLES_KEY, useDeleteRole, type Role, type RoleQuery } from '../api/roles';
import { RoleFormDialog } from './role-form-dialog';

export const ROLE_EDIT = 'as:sys:role:edit';

/**
 * Roles (console spec §2 roleManagement, as:sys:role:getList): list with name filter and
 * pagination; create, edit (permission tree and data scope) and delete need
 * as:sys:role:edit.
 */
export default function RoleManagementPage() {
  const { t } = useTranslation();
  const canEdit = useHasPermission(ROLE_EDIT);
  const remove = useDeleteRole();
  const [editing, setEditing] = useState<{ id?: string } | undefined>();

  const fields = useMemo<FilterField[]>(() => [{ prop: 'name', label: t('systemSettings.role.name'), type: 'input', width: 200, maxlength: 30 }], [t]);
  const list = useListPage<Role, RoleQuery>({ fields, queryKey: [...ROLES_KEY, 'list'], toQuery: roleQuery, fetch: listRoles });

  const columns: TableColumn<Role>[] = [
    { prop: 'name', label: t('systemSettings.role.name'), minWidth: 160 },
    { prop: 'description', label: t('systemSettings.role.description'), minWidth: 200, showOverflowTooltip: true },
    { prop: 'dataScope', label: t('systemSettings.scope.label'), width: 160, formatter: (r) => t(`systemSettings.scope.kinds.${r.dataScope}`, { defaultValue: String(r.dataScope) }) },
    { prop: 'userCount', label: t('systemSettings.role.userCount'), width: 100, align: 'center' },
    {
      prop: 'status',
      label: t('systemSettings.status'),
      width: 100,
      render: (r) => <Tag color={r.status === STATUS_ENABLED ? 'success' : 'default'}>{t(`systemSettings.statuses.${r.status}`, { defaultValue: String(r.status) })}</Tag>,
    },
    { prop: 'createTime', label: t('systemSettings.createTime'), width: 180, formatter: (r) => formatTime(r.createTime) },
    ...(canEdit
      ? [
          {
            prop: 'actions',
            label: t('systemSettings.actions'),
            width: 160,
            fixed: 'right' as const,
            render: (r: Role) => (
              <Space size={4}>
                <Button type="link" size="small" onClick={() => setEditing({ id: r.id })}>
                  {t('systemSettings.edit')}
                </Button>
                {/* A role members hold (the built-in administrator role always has one) is refused by the server. */}
                {r.userCount > 0 ? (
                  <Tooltip title={t('systemSettings.role.deleteMembers', { count: r.userCount })}>
                    <Button type="link" size="small" danger disabled>
                      {t('systemSettings.delete')}
                    </Button>
                  </Tooltip>
                ) : (
                  <Popconfirm
                    title={t('systemSettings.role.deleteConfirm', { name: r.name })}
                    onConfirm={async () => {
                      await remove.mutateAsync(r.id);
                      toastSuccess(t('systemSettings.deleted'));
                    }}
                  >
                    <Button type="link" size="small" danger>
                      {t('systemSettings.delete')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <ListPage<Role>
      testId="role-management"
      {...list.listProps}
      toolbar={
        canEdit && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})}>
            {t('systemSettings.role.add')}
          </Button>
        )
      }
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1100, ...list.tableProps }}
    >
      <RoleFormDialog open={!!editing} roleId={editing?.id} onClose={() => setEditing(undefined)} />
    </ListPage>
  );
}
