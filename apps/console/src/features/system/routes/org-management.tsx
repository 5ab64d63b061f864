import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Popconfirm, Space, Table, Tag, Tooltip, type TableColumnsType } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useTranslation } from 'react-i18next';
import { FilterBar, type FilterField } from '@/components/filter-bar/filter-bar';
import { useHasPermission } from '@/lib/auth';
import { toastSuccess } from '@/lib/notify';
import { allOrgIds, isRootOrg, STATUS_DISABLED, STATUS_ENABLED, useDeleteOrg, useOrgTree, useSetOrgStatus, type OrgNode } from '../api/orgs';
import { OrgFormDialog } from './org-form-dialog';
import { OrgMoveDialog } from './org-move-dialog';

export const ORG_EDIT = 'as:sys:org:edit';

type Dialog = { kind: 'add'; parentId?: string } | { kind: 'edit'; node: OrgNode } | { kind: 'move'; node: OrgNode } | undefined;

/**
 * Organisations (console spec §2 orgManagement, as:sys:org:getList): the multi-level
 * tree with search; add, edit, move, enable/disable and delete need
 * as:sys:org:edit. The hidden `addOrg` route opens it with the add dialog.
 * What 停用 means is said on the page: the subtree follows and its members
 * cannot use the enterprise until it is enabled again; the root (the
 * enterprise itself) cannot be disabled or deleted; only an empty organisation
 * can be deleted. After disabling, the page offers to enable it again.
 */
export default function OrgManagementPage({ startAdding = false }: { startAdding?: boolean }) {
  const { t } = useTranslation();
  const canEdit = useHasPermission(ORG_EDIT);
  const [name, setName] = useState('');
  const { data, isFetching } = useOrgTree({ name: name || undefined, includeDisabled: true });
  const tree = useMemo(() => data ?? [], [data]);
  const [dialog, setDialog] = useState<Dialog>(startAdding && canEdit ? { kind: 'add' } : undefined);
  const [expanded, setExpanded] = useState<readonly Key[] | undefined>();
  const setStatus = useSetOrgStatus();
  const remove = useDeleteOrg();
  const [lastDisabled, setLastDisabled] = useState<OrgNode | undefined>();
  const { data: fullTree } = useOrgTree({ includeDisabled: true });

  const fields = useMemo<FilterField[]>(() => [{ prop: 'name', label: t('systemSettings.org.name'), type: 'input', width: 200, maxlength: 50 }], [t]);

  const toggleStatus = async (node: OrgNode) => {
    const status = node.status === STATUS_ENABLED ? STATUS_DISABLED : STATUS_ENABLED;
    await setStatus.mutateAsync({ id: node.id, status });
    setLastDisabled(status === STATUS_DISABLED ? node : undefined);
    toastSuccess(t(status === STATUS_ENABLED ? 'systemSettings.enabledDone' : 'systemSettings.disabledDone'));
  };
  const deleteOrg = async (node: OrgNode) => {
    await remove.mutateAsync(node.id);
    toastSuccess(t('systemSettings.deleted'));
  };

  const columns: TableColumnsType<OrgNode> = [
    {
      key: 'name',
      dataIndex: 'name',
      title: t('systemSettings.org.name'),
      width: 300,
      render: (name: string, node: OrgNode) => (
        <>
          {name}
          {node.isCompany && (
            <Tag color="blue" style={{ marginInlineStart: 8 }}>
              {t('systemSettings.org.companyTag')}
            </Tag>
          )}
        </>
      ),
    },
    { key: 'orgCode', dataIndex: 'orgCode', title: t('systemSettings.org.code'), width: 180 },
    { key: 'level', dataIndex: 'level', title: t('systemSettings.org.level'), width: 100, align: 'center' },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('systemSettings.status'),
      width: 100,
      render: (s: number) => <Tag color={s === STATUS_ENABLED ? 'success' : 'default'}>{t(`systemSettings.statuses.${s}`, { defaultValue: String(s) })}</Tag>,
    },
    ...(canEdit
      ? [
          {
            key: 'actions',
            title: t('systemSettings.actions'),
            width: 300,
            render: (_: unknown, node: OrgNode) => (
              <Space size={4} wrap>
                <Button type="link" size="small" onClick={() => setDialog({ kind: 'add', parentId: node.id })} disabled={node.status !== STATUS_ENABLED}>
                  {t('systemSettings.org.addChild')}
                </Button>
                <Button type="link" size="small" onClick={() => setDialog({ kind: 'edit', node })}>
                  {t('systemSettings.edit')}
                </Button>
                <Button type="link" size="small" onClick={() => setDialog({ kind: 'move', node })}>
                  {t('systemSettings.org.move')}
                </Button>
                {isRootOrg(node) ? (
                  <Tooltip title={t('systemSettings.org.rootLocked')}>
                    <Button type="link" size="small" disabled data-testid="org-root-locked">
                      {t('systemSettings.disable')}
                    </Button>
                  </Tooltip>
                ) : (
                  <Popconfirm
                    title={t(node.status === STATUS_ENABLED ? 'systemSettings.org.disableConfirm' : 'systemSettings.org.enableConfirm', { name: node.name })}
                    styles={{ root: { maxWidth: 360 } }}
                    onConfirm={() => toggleStatus(node)}
                  >
                    <Button type="link" size="small" danger={node.status === STATUS_ENABLED}>
                      {t(node.status === STATUS_ENABLED ? 'systemSettings.disable' : 'systemSettings.enable')}
                    </Button>
                  </Popconfirm>
                )}
                {!isRootOrg(node) && !node.childs?.length && (
                  <Popconfirm title={t('systemSettings.org.deleteConfirm', { name: node.name })} styles={{ root: { maxWidth: 360 } }} onConfirm={() => deleteOrg(node)}>
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
    <div className="fd-list-page" data-testid="org-management">
      <FilterBar
        fields={fields}
        onSearch={(values) => {
          setName(typeof values.name === 'string' ? values.name.trim() : '');
          setExpanded(undefined);
        }}
      />
      <div className="fd-list-page__table">
        <Alert type="info" showIcon className="fd-org-rules" title={t('systemSettings.org.rules')} data-testid="org-rules" />
        {lastDisabled && (
          <Alert
            type="warning"
            showIcon
            closable={{ onClose: () => setLastDisabled(undefined) }}
            className="fd-org-rules"
            title={t('systemSettings.org.disabledWithUndo', { name: lastDisabled.name })}
            action={
              <Button size="small" onClick={() => void toggleStatus({ ...lastDisabled, status: STATUS_DISABLED })} data-testid="org-undo-disable">
                {t('systemSettings.org.undo')}
              </Button>
            }
            data-testid="org-disabled-notice"
          />
        )}
        {canEdit && (
          <div className="fd-list-page__toolbar">
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog({ kind: 'add' })}>
              {t('systemSettings.org.add')}
            </Button>
          </div>
        )}
        <Table<OrgNode>
          className="fd-table"
          rowKey="id"
          size="middle"
          loading={isFetching}
          columns={columns}
          dataSource={tree}
          pagination={false}
          expandable={{
            childrenColumnName: 'childs',
            expandedRowKeys: expanded ?? allOrgIds(tree),
            onExpandedRowsChange: (keys) => setExpanded(keys),
          }}
        />
      </div>
      <OrgFormDialog
        open={dialog?.kind === 'add' || dialog?.kind === 'edit'}
        tree={fullTree ?? []}
        editing={dialog?.kind === 'edit' ? dialog.node : undefined}
        parentId={dialog?.kind === 'add' ? dialog.parentId : undefined}
        onClose={() => setDialog(undefined)}
      />
      <OrgMoveDialog node={dialog?.kind === 'move' ? dialog.node : undefined} tree={fullTree ?? []} onClose={() => setDialog(undefined)} />
    </div>
  );
}
