import { ImportOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Segmented, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ExportButton } from '@/components/export-button';
import { ImportDialog } from '@/components/import-dialog/import-dialog';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTimeIn } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import {
  INSPECTIONS_KEY,
  INSPECTION_TEMPLATE_PERMISSION,
  downloadInspectionTemplate,
  exportInspections,
  importInspections,
  inspectionQuery,
  listInspections,
  type Inspection,
  type InspectionQuery,
} from '../api/inspections';
import {
  InspectionDrawer,
  RecordDialog,
} from '../components/inspection-dialogs';
import {
  INSPECTION_COLORS,
  INSPECTION_STATUSES,
  RESULT_COLORS,
  type InspectionStatus,
} from '../components/inspection-labels';

/** Inspection days are Beijing days, shown as such wherever the browser is. */
const day = (v: string | undefined) => formatTimeIn(v, '{y}-{m}-{d}');
const ALL = 'ALL';

/**
 * 年检管理 (drivingLicense, as:inspection): every vehicle's annual inspection,
 * soonest due first, its due day from the legal schedule of its class (goods
 * vehicles yearly to 10 years, half-yearly after) or its last inspection;
 * tabs for overdue and due soon (30 days), filtered by plate, VIN,
 * organisation and due day; an inspection recorded on the dynamic form with
 * its licence photos (a failed one keeps the vehicle due), the history in a
 * drawer; imported from and exported to xlsx.
 */
export default function DrivingLicensePage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const orgs = useOrgTreeOptions();
  const [recording, setRecording] = useState<Inspection | undefined>();
  const [viewing, setViewing] = useState<string | undefined>();
  const [importing, setImporting] = useState(false);
  const m = (key: string) => t(`vehicleManagement:inspection.${key}`);

  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'plateNumbers',
        label: t('vehicleManagement:inspection.plateNumber'),
        type: 'batchInput',
        width: 220,
      },
      {
        prop: 'vins',
        label: t('vehicleManagement:inspection.vin'),
        type: 'batchInput',
        width: 220,
      },
      {
        prop: 'orgIds',
        label: t('vehicleManagement:inspection.org'),
        type: 'selectTree',
        multiple: true,
        width: 220,
        options: orgs as never,
      },
      {
        prop: 'statuses',
        label: t('vehicleManagement:inspection.status'),
        type: 'select',
        multiple: true,
        width: 200,
        options: INSPECTION_STATUSES.map((s) => ({
          value: s,
          label: t(`vehicleManagement:inspection.statuses.${s}`),
        })),
      },
      {
        prop: 'expireTime',
        label: t('vehicleManagement:inspection.expireTime'),
        type: 'daterange',
        keys: { start: 'expireTimeStart', end: 'expireTimeEnd' },
      },
    ],
    [t, orgs],
  );
  const list = useListPage<Inspection, InspectionQuery>({
    fields,
    queryKey: INSPECTIONS_KEY,
    toQuery: inspectionQuery,
    fetch: listInspections,
  });
  const chosen = list.filters.statuses;
  const tab =
    Array.isArray(chosen) && chosen.length === 1
      ? chosen[0]
      : chosen && !Array.isArray(chosen)
        ? chosen
        : ALL;
  const showTab = (value: string) =>
    list.search({ ...list.filters, statuses: value === ALL ? [] : [value] });
  // 查询 keeps the chosen tab: a search whose values name no state stays on it.
  const searchKeepingTab = (values: Record<string, unknown>) => {
    const named = Array.isArray(values.statuses)
      ? values.statuses.length > 0
      : Boolean(values.statuses);
    list.search(named || tab === ALL ? values : { ...values, statuses: [tab] });
  };

  const columns: ListColumn<Inspection>[] = [
    { prop: 'plateNumber', label: m('plateNumber'), width: 110, fixed: 'left' },
    { prop: 'vin', label: m('vin'), width: 180 },
    {
      prop: 'status',
      label: m('status'),
      width: 100,
      render: (row) =>
        row.status ? (
          <Tag
            color={INSPECTION_COLORS[row.status]}
            data-testid="inspection-status"
          >
            {codeLabel(t, 'vehicleManagement:inspection.statuses', row.status)}
          </Tag>
        ) : (
          '--'
        ),
    },
    {
      prop: 'expireTime',
      label: m('expireTime'),
      width: 120,
      formatter: (row) => day(row.expireTime),
    },
    {
      prop: 'remainingDays',
      label: m('remainingDays'),
      width: 100,
      align: 'right',
      formatter: (row) => (row.expireTime ? String(row.remainingDays) : ''),
    },
    {
      prop: 'inspectionClass',
      label: m('class'),
      width: 170,
      formatter: (row) =>
        codeLabel(
          t,
          'vehicleManagement:inspection.classes',
          row.inspectionClass,
        ),
    },
    {
      prop: 'registerTime',
      label: m('registerTime'),
      width: 120,
      formatter: (row) => day(row.registerTime),
    },
    {
      prop: 'lastInspectionTime',
      label: m('lastInspection'),
      width: 120,
      formatter: (row) => day(row.lastInspectionTime),
    },
    {
      prop: 'lastResult',
      label: m('result'),
      width: 90,
      render: (row) =>
        row.lastResult ? (
          <Tag color={RESULT_COLORS[row.lastResult]}>
            {codeLabel(
              t,
              'vehicleManagement:inspection.results',
              row.lastResult,
            )}
          </Tag>
        ) : (
          '--'
        ),
    },
    {
      prop: 'stationName',
      label: m('station'),
      width: 200,
      showOverflowTooltip: true,
    },
    { prop: 'orgName', label: m('org'), width: 150, showOverflowTooltip: true },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 150,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setViewing(row.vehicleId)}
            data-testid="inspection-view"
          >
            {t('vehicleManagement:common.detail')}
          </Button>
          <Button
            type="link"
            size="small"
            onClick={() => setRecording(row)}
            data-testid="inspection-record"
          >
            {m('record')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <ListPage<Inspection>
      testId="inspection-list"
      {...list.listProps}
      onSearch={searchKeepingTab}
      toolbar={
        <Space>
          <Segmented
            value={tab}
            onChange={(value) => showTab(String(value))}
            options={[ALL, ...INSPECTION_STATUSES].map((s) => ({
              value: s,
              label:
                s === ALL
                  ? m('all')
                  : t(
                      `vehicleManagement:inspection.statuses.${s as InspectionStatus}`,
                    ),
            }))}
            data-testid="inspection-tabs"
          />
          <Button
            icon={<ImportOutlined />}
            onClick={() => setImporting(true)}
            data-testid="inspection-import"
          >
            {m('import')}
          </Button>
          <ExportButton
            startExport={(options) => exportInspections(list.query, options)}
          />
        </Space>
      }
      banner={
        <LoadErrorBanner
          error={list.error}
          onRetry={() => void list.refetch()}
        />
      }
      table={{
        rowKey: 'id',
        showIndex: true,
        columns,
        scrollX: 1700,
        ...list.tableProps,
      }}
    >
      <RecordDialog
        inspection={recording}
        onClose={() => setRecording(undefined)}
      />
      <InspectionDrawer
        vehicleId={viewing}
        onClose={() => setViewing(undefined)}
      />
      <ImportDialog
        open={importing}
        title={m('import')}
        importFile={importInspections}
        downloadTemplate={downloadInspectionTemplate}
        templatePermission={INSPECTION_TEMPLATE_PERMISSION}
        onClose={() => setImporting(false)}
        onImported={() =>
          void client.invalidateQueries({ queryKey: INSPECTIONS_KEY })
        }
      />
    </ListPage>
  );
}
