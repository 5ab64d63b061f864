import { useDriverOptions } from '@/lib/pickers';
import { Button, Space, Tag, Typography } from 'antd';
import { ImportOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ServeOrgCityField } from '@/components/area-picker/serve-org-city-cascader';
import { ImportDialog } from '@/components/import-dialog/import-dialog';
import { ExportButton } from '@/components/export-button';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import {
  VIOLATIONS_KEY,
  exportViolations,
  importViolations,
  listViolations,
  violationQuery,
  type Violation,
  type ViolationQuery,
} from '../api/violations';
import {
  VIOLATION_COLORS,
  VIOLATION_STATUSES,
} from '../components/violation-labels';

/** Where a violation's detail opens (the hidden trafficViolationsDetail route). */
export const DETAIL_PATH =
  '/carManagement/vehicleManagement/trafficViolationsDetail';

/**
 * 违章管理 (trafficViolations, as:violation): what the traffic authority
 * recorded against the fleet, fetched daily and imported, newest first, with
 * the responsible driver (from the usage record and binding valid at the
 * time, or assigned) and how far each is dealt with; filtered by plate,
 * organisation, the city it happened in (among the cities the user's serving
 * organisations serve: the service-organisation city cascader), driver, state
 * and time, the fines and points totalled over
 * the filter; exported as xlsx. Each row opens its detail, where it is
 * assigned, handled and marked paid.
 */
export default function TrafficViolationsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const client = useQueryClient();
  const [importing, setImporting] = useState(false);
  const drivers = useDriverOptions('');
  const m = (key: string) => t(`vehicleManagement:violation.${key}`);

  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'plateNumbers',
        label: t('vehicleManagement:violation.plateNumber'),
        type: 'batchInput',
        width: 220,
      },
      {
        prop: 'orgIds',
        label: t('vehicleManagement:violation.org'),
        type: 'selectTree',
        multiple: true,
        width: 220,
        options: orgs as never,
      },
      {
        prop: 'serveCity',
        label: t('vehicleManagement:violation.serveCity'),
        type: ServeOrgCityField,
        width: 260,
      },
      {
        prop: 'driverId',
        label: t('vehicleManagement:violation.driver'),
        type: 'select',
        width: 180,
        options: drivers.data ?? [],
      },
      {
        prop: 'statuses',
        label: t('vehicleManagement:violation.status'),
        type: 'select',
        multiple: true,
        width: 200,
        options: VIOLATION_STATUSES.map((s) => ({
          value: s,
          label: t(`vehicleManagement:violation.statuses.${s}`),
        })),
      },
      {
        prop: 'violationTime',
        label: t('vehicleManagement:violation.violationTime'),
        type: 'daterange',
        keys: { start: 'violationTimeStart', end: 'violationTimeEnd' },
      },
    ],
    [t, orgs, drivers.data],
  );
  const list = useListPage<
    Violation,
    ViolationQuery,
    Awaited<ReturnType<typeof listViolations>>
  >({
    fields,
    queryKey: VIOLATIONS_KEY,
    toQuery: violationQuery,
    fetch: listViolations,
  });
  const open = (row: Violation) =>
    navigate(`${DETAIL_PATH}?id=${encodeURIComponent(row.id)}`);

  const columns: ListColumn<Violation>[] = [
    { prop: 'plateNumber', label: m('plateNumber'), width: 110, fixed: 'left' },
    {
      prop: 'violationTime',
      label: m('violationTime'),
      width: 170,
      formatter: (row) => formatTime(row.violationTime),
    },
    {
      prop: 'address',
      label: m('address'),
      width: 200,
      showOverflowTooltip: true,
    },
    { prop: 'offenceCode', label: m('offenceCode'), width: 90 },
    {
      prop: 'description',
      label: m('description'),
      width: 240,
      showOverflowTooltip: true,
    },
    {
      prop: 'fineFen',
      label: m('fine'),
      width: 100,
      align: 'right',
      formatter: (row) => yuan(row.fineFen),
    },
    {
      prop: 'penaltyPoints',
      label: m('points'),
      width: 70,
      align: 'right',
      formatter: (row) => String(row.penaltyPoints),
    },
    { prop: 'driverName', label: m('driver'), width: 100 },
    {
      prop: 'status',
      label: m('status'),
      width: 100,
      render: (row) =>
        row.status ? (
          <Tag
            color={VIOLATION_COLORS[row.status]}
            data-testid="violation-status"
          >
            {codeLabel(t, 'vehicleManagement:violation.statuses', row.status)}
          </Tag>
        ) : (
          '--'
        ),
    },
    { prop: 'orgName', label: m('org'), width: 150, showOverflowTooltip: true },
    { prop: 'decisionNo', label: m('decisionNo'), width: 200 },
    {
      key: 'actions',
      label: t('vehicleManagement:common.actions'),
      width: 90,
      fixed: 'right',
      render: (row) => (
        <Button
          type="link"
          size="small"
          onClick={() => open(row)}
          data-testid="violation-view"
        >
          {t('vehicleManagement:common.detail')}
        </Button>
      ),
    },
  ];

  return (
    <>
      <ListPage<Violation>
        testId="violation-list"
        {...list.listProps}
        toolbar={
          <Space>
            <Typography.Text data-testid="violation-totals">
              {t('vehicleManagement:violation.totals', {
                fine: yuan(list.data?.totalFineFen ?? 0),
                points: list.data?.totalPenaltyPoints ?? 0,
              })}
            </Typography.Text>
            <Button
              icon={<ImportOutlined />}
              onClick={() => setImporting(true)}
              data-testid="violation-import"
            >
              {m('import')}
            </Button>
            <ExportButton
              startExport={(options) => exportViolations(list.query, options)}
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
          scrollX: 1800,
          ...list.tableProps,
        }}
      />
      <ImportDialog
        open={importing}
        title={m('import')}
        importFile={importViolations}
        onClose={() => setImporting(false)}
        onImported={() =>
          void client.invalidateQueries({ queryKey: VIOLATIONS_KEY })
        }
      />
    </>
  );
}
