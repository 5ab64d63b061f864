import { Button, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ImageViewer } from '@/components/image-viewer';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { useOrgTreeOptions } from '@/lib/org-options';
import '../messages';
import { exportFilters } from '../api/keys';
import { defaultRange, listPlateScans, PLATE_SCANS_KEY, plateScanQuery, type PlateScanQuery, type PlateScanRecord } from '../api/sessions';
import { codeLabel, codeOptions, SCAN_RESULT_COLORS, SCAN_RESULTS } from '../components/labels';
import { PATHS, pathWith } from '../paths';

/** 扫牌记录 (scanPlateRecord): plates the stations' cameras recognised, matched to vehicles, cards and the sessions they started. */
export default function ScanPlateRecordPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const navigate = useNavigate();
  const [viewing, setViewing] = useState<PlateScanRecord | null>(null);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plate', label: t('energy:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'orgId', label: t('energy:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'result', label: t('energy:scans.result'), type: 'select', width: 200, multiple: true, options: codeOptions(t, 'scanResult', SCAN_RESULTS) },
      { prop: 'scanTime', label: t('energy:scans.scanTime'), type: 'daterange', keys: { start: 'scanTimeStart', end: 'scanTimeEnd' }, initValue: defaultRange() },
    ],
    [t, orgs],
  );
  const list = useListPage<PlateScanRecord, PlateScanQuery>({ fields, queryKey: PLATE_SCANS_KEY, toQuery: plateScanQuery, fetch: listPlateScans });

  const columns: ListColumn<PlateScanRecord>[] = [
    { prop: 'scanTime', label: t('energy:scans.scanTime'), width: 170, formatter: (row) => formatTime(row.scanTime) },
    { prop: 'plateNumber', label: t('energy:fields.plateNumber'), width: 120 },
    { prop: 'stationName', label: t('energy:fields.station'), width: 200, showOverflowTooltip: true },
    { prop: 'pileNo', label: t('energy:scans.pile'), width: 110 },
    { prop: 'cardNo', label: t('energy:fields.cardNo'), width: 170 },
    { prop: 'orgName', label: t('energy:fields.org'), width: 150, showOverflowTooltip: true },
    {
      prop: 'result',
      label: t('energy:scans.result'),
      width: 130,
      render: (row) => (row.result ? <Tag color={SCAN_RESULT_COLORS[row.result]}>{codeLabel(t, 'scanResult', row.result)}</Tag> : BLANK),
    },
    {
      prop: 'sessionId',
      label: t('energy:scans.session'),
      width: 110,
      render: (row) =>
        row.sessionId ? (
          <Button type="link" size="small" onClick={() => navigate(pathWith(PATHS.consumeRecord, { sessionId: row.sessionId }))} data-testid="scan-session">
            {t('energy:common.detail')}
          </Button>
        ) : (
          BLANK
        ),
    },
    {
      prop: 'imageUrl',
      label: t('energy:scans.image'),
      width: 90,
      render: (row) =>
        row.imageUrl ? (
          <Button type="link" size="small" onClick={() => setViewing(row)}>
            {t('energy:scans.viewImage')}
          </Button>
        ) : (
          BLANK
        ),
    },
  ];

  return (
    <ListPage<PlateScanRecord>
      testId="plate-scan-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/charging/plate-scans/export', { ...options, params: { query: exportFilters(list.query) } })} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1400, ...list.tableProps }}
    >
      <ImageViewer images={viewing ? [{ src: viewing.imageUrl, title: viewing.plateNumber }] : []} open={!!viewing} onClose={() => setViewing(null)} />
    </ListPage>
  );
}
