import { Alert, Button, DatePicker, Empty, Form, InputNumber, Select, Space, Tabs, Tag } from 'antd';
import { useQuery } from '@tanstack/react-query';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { EChart } from '@/components/chart/echart';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import {
  bandOf,
  listTemperatureAlarms,
  listTemperatureVehicles,
  outOfBand,
  seriesRangeError,
  TEMPERATURE_ALARMS_KEY,
  TEMPERATURE_VEHICLES_KEY,
  temperatureAlarmQuery,
  temperatureSeries,
  temperatureVehicleQuery,
  useSetThreshold,
  type TemperatureAlarm,
  type TemperatureAlarmQuery,
  type TemperatureVehicle,
  type TemperatureVehicleQuery,
} from '../api/temperature';
import { useOrgTreeOptions } from '@/lib/org-options';
import { PATHS, pathWith } from '../paths';
import { temperatureChartOption } from './temperature-chart';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

const celsius = (value: number | null | undefined) => (value === null || value === undefined ? BLANK : `${value.toFixed(1)} ℃`);

/** 温度监控 (temperatureMonitor): refrigerated vehicles with their latest probes and alarm state, each vehicle's chart and band, and the alarm list. */
export default function TemperatureMonitorPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState('vehicles');
  return (
    <div data-testid="temperature-monitor">
      <Tabs
        activeKey={tab}
        onChange={setTab}
        destroyOnHidden
        items={[
          { key: 'vehicles', label: t('monitoring:temperature.tabs.vehicles'), children: <VehicleList /> },
          { key: 'alarms', label: t('monitoring:temperature.tabs.alarms'), children: <AlarmList /> },
        ]}
      />
    </div>
  );
}

function VehicleList() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const [chartOf, setChartOf] = useState<TemperatureVehicle | null>(null);
  const [bandFor, setBandFor] = useState<TemperatureVehicle | null>(null);
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plateSearch', label: t('monitoring:temperature.plateSearch'), type: 'input', width: 200 },
      { prop: 'orgIds', label: t('monitoring:fields.org'), type: 'selectTree', width: 220, multiple: true, options: orgs as never },
      { prop: 'alarmOnly', label: t('monitoring:temperature.alarmState'), type: 'select', width: 160, options: [{ value: 'true', label: t('monitoring:temperature.alarmOnly') }] },
    ],
    [t, orgs],
  );
  const list = useListPage<TemperatureVehicle, TemperatureVehicleQuery>({
    fields,
    queryKey: TEMPERATURE_VEHICLES_KEY,
    toQuery: temperatureVehicleQuery,
    fetch: listTemperatureVehicles,
    refetchInterval: () => 30_000,
  });
  const columns: ListColumn<TemperatureVehicle>[] = [
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'orgName', label: t('monitoring:fields.org'), width: 150, showOverflowTooltip: true },
    {
      prop: 'latest',
      label: t('monitoring:temperature.latest'),
      width: 280,
      render: (row) =>
        row.latest.length === 0 ? (
          BLANK
        ) : (
          <Space size={4} wrap>
            {row.latest.map((p) => (
              <Tag key={p.probe} color={outOfBand(p.celsius, bandOf(row.thresholds, p.probe)) ? 'error' : 'processing'}>
                {t('monitoring:temperature.probe', { n: p.probe })} {celsius(p.celsius)}
              </Tag>
            ))}
          </Space>
        ),
    },
    { prop: 'latestTime', label: t('monitoring:temperature.latestTime'), width: 160, formatter: (row) => formatTime(row.latestTime) },
    {
      prop: 'thresholds',
      label: t('monitoring:temperature.band'),
      width: 200,
      formatter: (row) =>
        row.thresholds.length === 0
          ? t('monitoring:temperature.noBand')
          : row.thresholds.map((b) => `${b.probeNo === 0 ? t('monitoring:temperature.allProbes') : t('monitoring:temperature.probe', { n: b.probeNo })} ${b.minCelsius}~${b.maxCelsius} ℃`).join('；'),
    },
    {
      prop: 'openAlarms',
      label: t('monitoring:temperature.alarmState'),
      width: 110,
      render: (row) => (row.openAlarms > 0 ? <Tag color="error">{t('monitoring:temperature.alarming', { count: row.openAlarms })}</Tag> : <Tag color="success">{t('monitoring:temperature.normal')}</Tag>),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 240,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setChartOf(row)} data-testid="temperature-chart-button">
            {t('monitoring:temperature.chart')}
          </Button>
          <Button type="link" size="small" onClick={() => setBandFor(row)} data-testid="temperature-band-button">
            {t('monitoring:temperature.thresholds')}
          </Button>
          <Button type="link" size="small" onClick={() => navigate(pathWith(PATHS.authorizationRecord, { vehicleId: row.vehicleId, plate: row.plateNumber }))}>
            {t('monitoring:temperature.share')}
          </Button>
        </Space>
      ),
    },
  ];
  return (
    <ListPage<TemperatureVehicle>
      testId="temperature-vehicle-list"
      {...list.listProps}
      toolbar={<Button onClick={() => navigate(PATHS.authorizationRecord)}>{t('monitoring:temperature.records')}</Button>}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'vehicleId', showIndex: true, columns, scrollX: 1300, ...list.tableProps }}
    >
      <ChartDialog vehicle={chartOf} onClose={() => setChartOf(null)} />
      <ThresholdDialog vehicle={bandFor} onClose={() => setBandFor(null)} />
    </ListPage>
  );
}

function ChartDialog({ vehicle, onClose }: { vehicle: TemperatureVehicle | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs().subtract(1, 'day'), dayjs()]);
  useEffect(() => {
    if (vehicle) setRange([dayjs().subtract(1, 'day'), dayjs()]);
  }, [vehicle]);
  const error = seriesRangeError(range[0], range[1]);
  const series = useQuery({
    queryKey: ['temperature', 'series', vehicle?.vehicleId, range[0].valueOf(), range[1].valueOf()],
    queryFn: () => temperatureSeries(vehicle?.vehicleId ?? '', range[0], range[1]),
    enabled: !!vehicle && !error,
  });
  const option = useMemo(() => temperatureChartOption(series.data?.readings ?? [], series.data?.thresholds ?? [], t), [series.data, t]);
  return (
    <AppDialog open={!!vehicle} width={900} title={`${t('monitoring:temperature.chart')} · ${vehicle?.plateNumber ?? ''}`} onCancel={onClose} showFooter={false} destroyOnHidden>
      <Space direction="vertical" style={{ width: '100%' }}>
        <DatePicker.RangePicker
          showTime
          value={range}
          allowClear={false}
          onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
          disabledDate={(day) => day.isAfter(dayjs(), 'day')}
          data-testid="temperature-range"
        />
        {error && <Alert type="warning" showIcon title={t(`monitoring:temperature.range.${error}`)} />}
        <LoadErrorBanner error={series.error} onRetry={() => void series.refetch()} />
        {series.data && series.data.readings.length === 0 ? (
          <Empty description={t('monitoring:temperature.noData')} />
        ) : (
          <EChart option={option} style={{ height: 360 }} data-testid="temperature-chart" />
        )}
      </Space>
    </AppDialog>
  );
}

interface BandForm {
  probeNo: number;
  minCelsius: number;
  maxCelsius: number;
  minDurationSeconds: number;
}

function ThresholdDialog({ vehicle, onClose }: { vehicle: TemperatureVehicle | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<BandForm>();
  const save = useSetThreshold();
  const probes = useMemo(() => [...new Set([0, ...(vehicle?.latest.map((p) => p.probe) ?? []), ...(vehicle?.thresholds.map((b) => b.probeNo) ?? [])])].sort((a, b) => a - b), [vehicle]);
  const fill = (probeNo: number) => {
    const band = vehicle?.thresholds.find((b) => b.probeNo === probeNo);
    form.setFieldsValue({ probeNo, minCelsius: band?.minCelsius ?? -18, maxCelsius: band?.maxCelsius ?? -12, minDurationSeconds: band?.minDurationSeconds ?? 300 });
  };
  useEffect(() => {
    if (vehicle) fill(0);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [vehicle]);
  const submit = async () => {
    if (!vehicle) return;
    const values = await form.validateFields();
    await save.mutateAsync({ vehicleId: vehicle.vehicleId, ...values });
    toastSuccess(t('monitoring:common.saved'));
    onClose();
  };
  return (
    <AppDialog open={!!vehicle} width={480} title={`${t('monitoring:temperature.thresholds')} · ${vehicle?.plateNumber ?? ''}`} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="temperatureBand" data-testid="temperature-band-form">
        <Form.Item name="probeNo" label={t('monitoring:temperature.probeNo')}>
          <Select onChange={(p: number) => fill(p)} options={probes.map((p) => ({ value: p, label: p === 0 ? t('monitoring:temperature.allProbes') : t('monitoring:temperature.probe', { n: p }) }))} />
        </Form.Item>
        <Form.Item name="minCelsius" label={t('monitoring:temperature.minCelsius')} rules={[{ required: true, message: t('monitoring:temperature.required') }]}>
          <InputNumber min={-100} max={100} step={0.5} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item
          name="maxCelsius"
          label={t('monitoring:temperature.maxCelsius')}
          dependencies={['minCelsius']}
          rules={[
            { required: true, message: t('monitoring:temperature.required') },
            ({ getFieldValue }) => ({
              validator: (_, value: number | undefined) =>
                value === undefined || value > (getFieldValue('minCelsius') as number) ? Promise.resolve() : Promise.reject(new Error(t('monitoring:temperature.maxAboveMin'))),
            }),
          ]}
        >
          <InputNumber min={-100} max={100} step={0.5} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="minDurationSeconds" label={t('monitoring:temperature.minDuration')} extra={t('monitoring:temperature.minDurationHelp')} rules={[{ required: true, message: t('monitoring:temperature.required') }]}>
          <InputNumber min={0} max={86_400} step={60} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

function AlarmList() {
  const { t } = useTranslation();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'from', label: t('monitoring:temperature.startedAt'), type: 'datetime', width: 200 },
      { prop: 'to', label: t('monitoring:temperature.endedAt'), type: 'datetime', width: 200 },
      { prop: 'openOnly', label: t('monitoring:temperature.state'), type: 'select', width: 160, options: [{ value: 'true', label: t('monitoring:temperature.openOnly') }] },
    ],
    [t],
  );
  const list = useListPage<TemperatureAlarm, TemperatureAlarmQuery>({
    fields,
    queryKey: TEMPERATURE_ALARMS_KEY,
    toQuery: temperatureAlarmQuery,
    fetch: listTemperatureAlarms,
  });
  const columns: ListColumn<TemperatureAlarm>[] = [
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'probeNo', label: t('monitoring:temperature.probeNo'), width: 90, formatter: (row) => t('monitoring:temperature.probe', { n: row.probeNo }) },
    { prop: 'startedAt', label: t('monitoring:temperature.startedAt'), width: 160, formatter: (row) => formatTime(row.startedAt) },
    { prop: 'endedAt', label: t('monitoring:temperature.endedAt'), width: 160, render: (row) => (row.endedAt ? formatTime(row.endedAt) : <Tag color="error">{t('monitoring:temperature.lasting')}</Tag>) },
    { prop: 'minSeenCelsius', label: t('monitoring:temperature.seen'), width: 160, formatter: (row) => `${celsius(row.minSeenCelsius)} ~ ${celsius(row.maxSeenCelsius)}` },
    { prop: 'thresholdMinCelsius', label: t('monitoring:temperature.threshold'), width: 160, formatter: (row) => `${celsius(row.thresholdMinCelsius)} ~ ${celsius(row.thresholdMaxCelsius)}` },
    { prop: 'minDurationSeconds', label: t('monitoring:temperature.duration'), width: 110, align: 'right', formatter: (row) => `${row.minDurationSeconds} s` },
  ];
  const exportFilters = { ...list.query, page: undefined, size: undefined };
  return (
    <ListPage<TemperatureAlarm>
      testId="temperature-alarm-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options: CallOptions) => api.post('/api/v1/temperature/alarms/export', { ...options, params: { query: exportFilters } })} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1000, ...list.tableProps }}
    />
  );
}
