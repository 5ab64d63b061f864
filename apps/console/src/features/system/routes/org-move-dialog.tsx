import { Form, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { toastSuccess } from '@/lib/notify';
import { orgOptions, useMoveOrg, type OrgNode } from '../api/orgs';

/**
 * Moves a node with its subtree under a new parent (blank: the top). The node
 * and its subtree are not offered; the server refuses any cycle anyway and its
 * message is shown.
 */
export function OrgMoveDialog({ node, tree, onClose }: { node?: OrgNode; tree: OrgNode[]; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ parentId?: string }>();
  const move = useMoveOrg();
  useEffect(() => {
    if (node) form.setFieldsValue({ parentId: node.parentId || undefined });
  }, [node, form]);
  return (
    <AppDialog
      open={!!node}
      width={520}
      title={t('systemSettings.org.moveTitle', { name: node?.name ?? '' })}
      onCancel={onClose}
      onConfirm={async () => {
        if (!node) return;
        const { parentId } = await form.validateFields();
        await move.mutateAsync({ id: node.id, parentId: parentId ?? '' });
        toastSuccess(t('systemSettings.saved'));
        onClose();
      }}
      destroyOnHidden
    >
      <Form form={form} name="orgMoveForm" layout="vertical" data-testid="org-move-form">
        <Form.Item name="parentId" label={t('systemSettings.org.newParent')} extra={t('systemSettings.org.parentHint')}>
          <TreeSelect allowClear treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgOptions(tree, node?.id)} placeholder={t('systemSettings.org.topLevel')} data-testid="org-new-parent" />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}
