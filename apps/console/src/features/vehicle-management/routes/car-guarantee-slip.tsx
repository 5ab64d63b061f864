import { ImportOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ImportDialog } from '@/components/import-dialog/import-dialog';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTimeIn } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { POLICIES_KEY, exportPolicies, importPolicies, listPolicies, policyQuery, type Policy, type PolicyQuery } from '../api/insurance';
import { INSURANCE_KINDS, POLICY_STATUSES } from '../components/insurance-labels';
import { PolicyDrawer, PolicyFormDialog, PolicyStatusTag } from '../components/policy-dialogs';

/** Where a policy's documents open (the hidden insuranceOrder route). */
export const DOCUMENTS_PATH = '/carManagement/vehicleManagement/insuranceOrder';

/** A policy's days are Beijing days, wherever the browser is. */
export const policyDay = (value: string) => formatTimeIn(value, '{y}-{m}-{d}');

/**
 * 保险管理 (carGuaranteeSlip, as:insurance; hidden for enterprises on the
 * insurance blacklist): the fleet's compulsory and commercial policies,
 * latest end first, filtered by plate, organisation, kind, insurer, policy
 * number, expiry state (expired, within 30 days, valid, not started) and end
 * date; recorded and corrected on the dynamic form, imported from xlsx (all
 * rows or none) and exported. A row opens its detail (coverage items,
 * documents, operation log) or its documents (insuranceOrder).
 */
export default function CarGuaranteeSlipPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const orgs = useOrgTreeOptions();
  const [viewing, setViewing] = useState<string>();
  const [editing, setEditing] = useState<{ policy?: Policy } | null>(null);
  const [importing, setImporting] = useState(false);
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);

  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plateNumbers', label: t('vehicleManagement:insurance.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgIds', label: t('vehicleManagement:insurance.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
      {
        prop: 'statuses',
        label: t('vehicleManagement:insurance.status'),
        type: 'select',
        multiple: true,
        width: 220,
        options: POLICY_STATUSES.map((s) => ({ value: s, label: t(`vehicleManagement:insurance.statuses.${s}`) })),
      },
      {
        prop: 'kinds',
        label: t('vehicleManagement:insurance.kind'),
        type: 'select',
        multiple: true,
        width: 200,
        options: INSURANCE_KINDS.map((k) => ({ value: k, label: t(`vehicleManagement:insurance.kinds.${k}`) })),
      },
      { prop: 'insurers', label: t('vehicleManagement:insurance.insurer'), type: 'input', width: 220 },
      { prop: 'policyNo', label: t('vehicleManagement:insurance.policyNo'), type: 'input', width: 220 },
      { prop: 'endTime', label: t('vehicleManagement:insurance.endTime'), type: 'daterange', keys: { start: 'endTimeStart', end: 'endTimeEnd' } },
    ],
    [t, orgs],
  );
  const list = useListPage<Policy, PolicyQuery, Awaited<ReturnType<typeof listPolicies>>>({
    fields,
    queryKey: POLICIES_KEY,
    toQuery: policyQuery,
    fetch: listPolicies,
  });

  const columns: ListColumn<Policy>[] = [
    { prop: 'plateNumber', label: i('plateNumber'), width: 110, fixed: 'left' },
    { prop: 'kind', label: i('kind'), width: 100, formatter: (row) => codeLabel(t, 'vehicleManagement:insurance.kinds', row.kind) },
    { prop: 'insurer', label: i('insurer'), width: 220, showOverflowTooltip: true },
    { prop: 'policyNo', label: i('policyNo'), width: 200 },
    { prop: 'startTime', label: i('startTime'), width: 110, formatter: (row) => policyDay(row.startTime) },
    { prop: 'endTime', label: i('endTime'), width: 110, formatter: (row) => policyDay(row.endTime) },
    { prop: 'premiumFen', label: i('premium'), width: 110, align: 'right', formatter: (row) => yuan(row.premiumFen) },
    { prop: 'status', label: i('status'), width: 100, render: (row) => <PolicyStatusTag status={row.status} /> },
    { prop: 'orgName', label: i('org'), width: 150, showOverflowTooltip: true },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 200,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setViewing(row.id)} data-testid="policy-view">
            {t('vehicleManagement:common.detail')}
          </Button>
          <Button type="link" size="small" onClick={() => setEditing({ policy: row })} data-testid="policy-edit-row">
            {t('vehicleManagement:common.edit')}
          </Button>
          <Button type="link" size="small" onClick={() => navigate(`${DOCUMENTS_PATH}?id=${encodeURIComponent(row.id)}`)} data-testid="policy-documents-open">
            {i('documentsAction')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <>
      <ListPage<Policy>
        testId="policy-list"
        {...list.listProps}
        toolbar={
          <Space>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({})} data-testid="policy-add">
              {i('add')}
            </Button>
            <Button icon={<ImportOutlined />} onClick={() => setImporting(true)} data-testid="policy-import">
              {i('import')}
            </Button>
            <ExportButton startExport={(options) => exportPolicies(list.query, options)} />
          </Space>
        }
        banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
        table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1500, ...list.tableProps }}
      />
      <PolicyDrawer
        policyId={viewing}
        onClose={() => setViewing(undefined)}
        onEdit={(policy) => setEditing({ policy })}
      />
      <PolicyFormDialog open={!!editing} policy={editing?.policy} onClose={() => setEditing(null)} />
      <ImportDialog
        open={importing}
        title={i('import')}
        importFile={importPolicies}
        onClose={() => setImporting(false)}
        onImported={() => void client.invalidateQueries({ queryKey: POLICIES_KEY })}
      />
    </>
  );
}
