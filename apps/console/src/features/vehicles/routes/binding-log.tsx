import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { BindingExportSlot } from '../components/toolbar-slots';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { BINDINGS_KEY, bindingQuery, listBindings, type BindingQuery, type VehicleBinding } from '../api/bindings';
import { useOrgTreeOptions } from '@/lib/org-options';
import { BINDING_KINDS } from '../components/vehicle-labels';

/** 绑定记录 (bindingLog): terminal, driver and organisation bindings of the vehicles, with who bound and unbound them and when. */
export default function BindingLogPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const b = (key: string) => t(`vehicles.binding.${key}`);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('vehicles.fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'vin', label: t('vehicles.fields.vin'), type: 'batchInput', width: 240 },
      { prop: 'orgId', label: t('vehicles.fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'kind', label: b('kind'), type: 'select', width: 180, multiple: true, options: BINDING_KINDS.map((k) => ({ value: k, label: b(`kinds.${k}`) })) },
      { prop: 'targetId', label: b('targetId'), type: 'input', width: 180, maxlength: 32 },
      { prop: 'active', label: b('state'), type: 'select', width: 120, options: [{ value: 'true', label: b('active') }, { value: 'false', label: b('ended') }] },
      { prop: 'bindTime', label: b('bindTime'), type: 'daterange', keys: { start: 'bindTimeStart', end: 'bindTimeEnd' } },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [t, orgs],
  );
  const list = useListPage<VehicleBinding, BindingQuery>({ fields, queryKey: [...BINDINGS_KEY, 'list'], toQuery: bindingQuery, fetch: listBindings });
  const columns: ListColumn<VehicleBinding>[] = [
    { prop: 'plateNumber', label: t('vehicles.fields.plateNumber'), width: 120 },
    // Whether the binding holds, beside the plate: seen at 1440 px without scrolling.
    { prop: 'active', label: b('state'), width: 90, render: (row) => <Tag color={row.active ? 'success' : 'default'}>{row.active ? b('active') : b('ended')}</Tag> },
    { prop: 'vin', label: t('vehicles.fields.vin'), width: 190 },
    { prop: 'kind', label: b('kind'), width: 90, formatter: (row) => t(`vehicles.binding.kinds.${row.kind}`, { defaultValue: '' }) },
    { prop: 'targetName', label: b('target'), minWidth: 160, formatter: (row) => row.targetName || row.targetId },
    { prop: 'terminalSim', label: t('vehicles.fields.terminalSim'), width: 150 },
    { prop: 'bindTime', label: b('bindTime'), width: 170, formatter: (row) => formatTime(row.bindTime) },
    { prop: 'operatorName', label: b('operator'), width: 110 },
    { prop: 'unbindTime', label: b('unbindTime'), width: 170, formatter: (row) => formatTime(row.unbindTime) },
    { prop: 'unbindOperatorName', label: b('unbindOperator'), width: 110 },
  ];
  return (
    <ListPage<VehicleBinding>
      testId="binding-log"
      {...list.listProps}
      toolbar={<BindingExportSlot query={list.query} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1500, ...list.tableProps }}
    />
  );
}
