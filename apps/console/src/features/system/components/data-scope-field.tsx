import { Radio, Space, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import type { OrgOption } from '../api/orgs';
import { SCOPE_FROM_ROLES, SCOPE_KINDS, scopeOrgMode, type DataScopeValue } from './data-scope';

export interface DataScopeFieldProps {
  value?: DataScopeValue;
  onChange?: (value: DataScopeValue) => void;
  orgs: OrgOption[];
  /** Users may leave the scope to their roles. */
  allowFromRoles?: boolean;
}

/** Data scope kind as radio buttons, then the organisation(s) the kind needs. */
export function DataScopeField({ value, onChange, orgs, allowFromRoles }: DataScopeFieldProps) {
  const { t } = useTranslation();
  const kind = value?.kind;
  const mode = scopeOrgMode(kind);
  const kinds = allowFromRoles ? [SCOPE_FROM_ROLES, ...SCOPE_KINDS] : [...SCOPE_KINDS];
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Radio.Group
        value={kind}
        onChange={(e) => onChange?.({ kind: e.target.value as number, orgIds: [] })}
        options={kinds.map((k) => ({ value: k, label: t(`systemSettings.scope.kinds.${k}`) }))}
        data-testid="data-scope-kind"
      />
      {mode === 'single' && (
        <TreeSelect
          allowClear
          treeDefaultExpandAll
          showSearch={{ treeNodeFilterProp: 'title' }}
          style={{ width: '100%' }}
          placeholder={t('systemSettings.scope.ownOrg')}
          treeData={orgs}
          value={value?.orgIds?.[0]}
          onChange={(id?: string) => onChange?.({ kind, orgIds: id ? [id] : [] })}
          data-testid="data-scope-org"
        />
      )}
      {mode === 'multiple' && (
        <TreeSelect
          multiple
          treeCheckable
          treeCheckStrictly={false}
          showCheckedStrategy={TreeSelect.SHOW_ALL}
          allowClear
          treeDefaultExpandAll
          showSearch={{ treeNodeFilterProp: 'title' }}
          style={{ width: '100%' }}
          placeholder={t('systemSettings.scope.pickOrgs')}
          treeData={orgs}
          value={value?.orgIds ?? []}
          onChange={(ids: string[]) => onChange?.({ kind, orgIds: ids })}
          data-testid="data-scope-orgs"
        />
      )}
    </Space>
  );
}
