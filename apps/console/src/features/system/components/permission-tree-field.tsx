import { Spin, Tree } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { PermissionNode } from '../api/roles';
import { displayedChecks, indexPermissions, permissionTreeData, togglePermission } from './permission-tree';

export interface PermissionTreeFieldProps {
  value?: string[];
  onChange?: (value: string[]) => void;
  catalogue?: PermissionNode[];
  loading?: boolean;
}

/**
 * Function permissions as a checkbox tree of the catalogue, labels in the
 * current language, in its own scroll area (the dialog's buttons stay in view).
 */
export function PermissionTreeField({ value = [], onChange, catalogue = [], loading }: PermissionTreeFieldProps) {
  const { i18n } = useTranslation();
  const treeData = useMemo(() => permissionTreeData(catalogue, i18n.language), [catalogue, i18n.language]);
  const index = useMemo(() => indexPermissions(catalogue), [catalogue]);
  const checks = useMemo(() => displayedChecks(value, index), [value, index]);
  if (loading) return <Spin />;
  return (
    <div className="fd-permission-tree" data-testid="permission-tree">
      <Tree
        checkable
        checkStrictly
        selectable={false}
        defaultExpandAll
        treeData={treeData}
        checkedKeys={checks}
        onCheck={(_, info) => onChange?.(togglePermission(value, String(info.node.key), !checks.checked.includes(String(info.node.key)), index))}
      />
    </div>
  );
}
