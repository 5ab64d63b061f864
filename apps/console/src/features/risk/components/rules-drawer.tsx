import { Button, Drawer, Popconfirm, Space, Switch, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadErrorBanner } from '@/components/load-error';
import { PaginatedTable, type TableColumn } from '@/components/paginated-table';
import { useHasPermission } from '@/lib/auth';
import { BLANK } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { ruleForm, useAlarmRules, useDeleteRule, useUpdateRule, type AlarmRule } from '../api/rules';
import { LEVEL_COLORS } from './labels';
import { RuleFormDialog } from './rule-form-dialog';
import { ruleParams } from './rule-form';

/** Changing rules needs its own permission; reading them comes with the alarm page. */
export const RULE_PERMISSION = 'as:alarm:rule';

/** 报警规则: the enterprise's rules with kind, level, scope, parameters and the enabled switch. */
export function RulesDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const canEdit = useHasPermission(RULE_PERMISSION);
  const rules = useAlarmRules(open);
  const update = useUpdateRule();
  const remove = useDeleteRule();
  const [editing, setEditing] = useState<{ rule?: AlarmRule } | null>(null);
  const list = rules.data ?? [];

  const toggle = async (rule: AlarmRule, enabled: boolean) => {
    await update.mutateAsync({ ...ruleForm(rule), enabled, id: rule.id });
    toastSuccess(t('risk:common.saved'));
  };
  const del = async (rule: AlarmRule) => {
    await remove.mutateAsync(rule.id);
    toastSuccess(t('risk:common.deleted'));
  };

  const columns: TableColumn<AlarmRule>[] = [
    { prop: 'name', label: t('risk:rules.name'), width: 160, showOverflowTooltip: true },
    { prop: 'kind', label: t('risk:rules.kind'), width: 100, formatter: (row) => (row.kind ? t(`risk:rules.kinds.${row.kind}`) : BLANK) },
    { prop: 'level', label: t('risk:rules.level'), width: 80, render: (row) => (row.level ? <Tag color={LEVEL_COLORS[row.level]}>{t(`risk:level.${row.level}`)}</Tag> : BLANK) },
    { prop: 'orgName', label: t('risk:rules.scope'), width: 130, formatter: (row) => row.orgName || t('risk:rules.allVehicles') },
    { prop: 'params', label: t('risk:rules.params'), minWidth: 200, formatter: (row) => ruleParams(t, row) || BLANK },
    {
      prop: 'enabled',
      label: t('risk:rules.enabled'),
      width: 80,
      render: (row) => <Switch size="small" checked={row.enabled} disabled={!canEdit} onChange={(on) => void toggle(row, on).catch(() => undefined)} data-testid="rule-switch" />,
    },
    ...(canEdit
      ? [
          {
            prop: 'actions',
            label: t('risk:common.actions'),
            width: 120,
            fixed: 'right' as const,
            render: (row: AlarmRule) => (
              <Space size={0}>
                <Button type="link" size="small" onClick={() => setEditing({ rule: row })} data-testid="rule-edit">
                  {t('risk:common.edit')}
                </Button>
                <Popconfirm title={t('risk:common.confirmDelete')} onConfirm={() => del(row)}>
                  <Button type="link" size="small" danger data-testid="rule-delete">
                    {t('risk:common.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <Drawer
      open={open}
      size={960}
      title={t('risk:rules.title')}
      onClose={onClose}
      extra={
        canEdit && (
          <Button type="primary" onClick={() => setEditing({})} data-testid="rule-add">
            {t('risk:rules.add')}
          </Button>
        )
      }
      data-testid="rules-drawer"
    >
      <LoadErrorBanner error={rules.error} onRetry={() => void rules.refetch()} />
      <PaginatedTable<AlarmRule> rowKey="id" columns={columns} data={list} total={list.length} loading={rules.isFetching} hidePagination />
      <RuleFormDialog open={!!editing} rule={editing?.rule} onClose={() => setEditing(null)} />
    </Drawer>
  );
}
