import { PauseCircleOutlined, PlayCircleOutlined } from '@ant-design/icons';
import { Alert, Button, DatePicker, Empty, Segmented, Slider, Space, Spin, Statistic, Table, Tabs } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { EChart } from '@/components/chart/echart';
import { ExportButton } from '@/components/export-button';
import { LoadErrorBanner } from '@/components/load-error';
import { MapView } from '@/components/map/map-view';
import { api, type CallOptions } from '@/lib/api-client';
import { BLANK, formatTime } from '@/lib/format';
import { toastError } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import { useTrack, type TrackRequest, type TrackSpeeding, type TrackStop } from '../api/track';
import { durationText } from '../components/query';
import { TrackLayer } from '../components/track-layer';
import { advance, indexAtTime, initialPlayer, interpolate, MAX_RANGE_DAYS, PLAY_SPEEDS, POINTS_PER_SECOND, rangeProblem, seek, togglePlay, type PlaySpeed, type PlayerState } from '../components/track-player';
import { VehiclePickOne, type VehicleOption } from '../components/vehicle-select';

const TIME = 'YYYY-MM-DD HH:mm:ss';
/** The charts' cursor moves about this often while playing (a chart update per frame is wasteful). */
const CHART_CURSOR_PER_SECOND = 4;

/** Playback runs on animation frames while playing. */
function usePlayer(count: number) {
  const [state, setState] = useState<PlayerState>(initialPlayer);
  const last = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!state.playing) {
      last.current = undefined;
      return;
    }
    let frame = requestAnimationFrame(function step(now) {
      const elapsed = last.current === undefined ? 0 : now - last.current;
      last.current = now;
      setState((s) => advance(s, elapsed, count));
      frame = requestAnimationFrame(step);
    });
    return () => cancelAnimationFrame(frame);
  }, [state.playing, count]);
  return [state, setState] as const;
}

function initialRange(params: URLSearchParams): [Dayjs, Dayjs] {
  const from = params.get('from');
  const to = params.get('to');
  if (from && to && dayjs(from).isValid() && dayjs(to).isValid()) return [dayjs(from), dayjs(to)];
  return [dayjs().subtract(1, 'day'), dayjs()];
}

/**
 * 轨迹回放 (trackPlayback, `?vehicleId=&plate=&from=&to=`): one vehicle over up
 * to 7 days; play/pause, speed, scrub; stops and speeding stretches on the map
 * and listed; speed and SOC charts; export of the track.
 */
export default function TrackPlaybackPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const initialVehicle = params.get('vehicleId') ? { value: params.get('vehicleId') as string, label: params.get('plate') ?? '' } : undefined;
  const [vehicle, setVehicle] = useState<VehicleOption | undefined>(initialVehicle);
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(() => initialRange(params));
  const [request, setRequest] = useState<TrackRequest | undefined>(() => {
    const r = initialRange(params);
    return initialVehicle && !rangeProblem(r[0].toDate(), r[1].toDate()) ? { vehicleId: initialVehicle.value, from: r[0].format(), to: r[1].format() } : undefined;
  });
  const track = useTrack(request);
  const points = useMemo(() => track.data?.points ?? [], [track.data]);
  const stops = useMemo(() => track.data?.stops ?? [], [track.data]);
  const speeding = useMemo(() => track.data?.speeding ?? [], [track.data]);
  const [player, setPlayer] = usePlayer(points.length);

  useEffect(() => setPlayer(initialPlayer()), [track.data, setPlayer]);

  const search = () => {
    const problem = rangeProblem(range?.[0]?.toDate(), range?.[1]?.toDate());
    if (!vehicle) return toastError(t('monitoring:track.vehicleRequired'));
    if (problem || !range) return toastError(t(`monitoring:track.${problem}`, { days: MAX_RANGE_DAYS }));
    const next = { vehicleId: vehicle.value, from: range[0].format(), to: range[1].format() };
    setRequest(next);
    setParams({ vehicleId: vehicle.value, plate: vehicle.label, from: range[0].format(TIME), to: range[1].format(TIME) }, { replace: true });
  };

  const here = interpolate(points, player.position);
  const seekTo = useCallback((time: string) => setPlayer((s) => seek({ ...s, playing: false }, indexAtTime(points, time), points.length)), [points, setPlayer]);
  const stopLabel = useCallback((s: TrackStop) => `${formatTime(s.from)} · ${durationText(s.durationS, t)}`, [t]);

  // The charts: built once per track; only the cursor line moves, a few times a second.
  const cursorStep = Math.max(1, Math.round((POINTS_PER_SECOND * player.speed) / CHART_CURSOR_PER_SECOND));
  const cursorIndex = Math.floor(player.position / cursorStep) * cursorStep;
  const cursorTime = points[Math.min(points.length - 1, cursorIndex)]?.t;
  const chartOption = useCallback(
    (name: string, unit: string, values: [string, number | null][], color: string, areas: [string, string][]) => ({
      grid: { left: 48, right: 16, top: 28, bottom: 28 },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'time' },
      yAxis: { type: 'value', name: unit },
      dataZoom: [{ type: 'inside' }],
      series: [
        {
          name,
          type: 'line',
          showSymbol: false,
          sampling: 'lttb',
          lineStyle: { width: 1.5, color },
          itemStyle: { color },
          data: values,
          markArea: { silent: true, itemStyle: { color: 'rgba(229,37,42,0.12)' }, data: areas.map(([a, b]) => [{ xAxis: a }, { xAxis: b }]) },
          markLine: { silent: true, symbol: 'none', animation: false, label: { show: false }, lineStyle: { color: '#1764ff' }, data: cursorTime ? [{ xAxis: cursorTime }] : [] },
        },
      ],
    }),
    [cursorTime],
  );
  const speedValues = useMemo(() => points.map((p) => [p.t, p.speedKmh] as [string, number]), [points]);
  const socValues = useMemo(() => points.map((p) => [p.t, p.soc ?? null] as [string, number | null]), [points]);
  const speedAreas = useMemo(() => speeding.map((s) => [s.from, s.to] as [string, string]), [speeding]);
  const speedOption = useMemo(() => chartOption(t('monitoring:live.speed'), 'km/h', speedValues, '#237804', speedAreas), [chartOption, t, speedValues, speedAreas]);
  const socOption = useMemo(() => chartOption(t('monitoring:live.soc'), '%', socValues, '#08979c', []), [chartOption, t, socValues]);
  const onChartClick = ({ dataIndex }: { dataIndex: number }) => setPlayer((s) => seek({ ...s, playing: false }, dataIndex, points.length));

  const exportTrack = (options: CallOptions) =>
    request ? api.post('/api/v1/monitor/vehicles/{vehicleId}/track/export', { ...options, params: { path: { vehicleId: request.vehicleId }, query: { from: request.from, to: request.to } } }) : Promise.reject(new Error(t('monitoring:track.vehicleRequired')));

  return (
    <div className="fd-monitor-page" data-testid="track-playback">
      <div className="fd-monitor-toolbar">
        <Space wrap>
          <VehiclePickOne value={vehicle?.value} current={initialVehicle} onChange={setVehicle} placeholder={t('monitoring:track.vehiclePlaceholder')} />
          <DatePicker.RangePicker
            showTime
            value={range}
            onChange={(v) => setRange(v && v[0] && v[1] ? [v[0], v[1]] : null)}
            disabledDate={(d) => d.isAfter(dayjs(), 'day')}
            data-testid="track-range"
          />
          <Button type="primary" onClick={search} data-testid="track-search">
            {t('monitoring:track.search')}
          </Button>
          <span className="fd-muted">{t('monitoring:track.rangeHint', { days: MAX_RANGE_DAYS })}</span>
        </Space>
        <ExportButton startExport={exportTrack} disabled={!request} />
      </div>
      <LoadErrorBanner error={track.error} onRetry={() => void track.refetch()} />
      <div className="fd-monitor-split" style={{ gridTemplateColumns: '1fr 340px' }}>
        <div className="fd-monitor-panel fd-monitor-panel--map" style={{ height: 'calc(100vh - 420px)', minHeight: 420 }}>
          <MapView data-testid="track-map">
            <TrackLayer points={points} stops={stops} speeding={speeding} position={player.position} follow={player.playing} onStop={(s) => seekTo(s.from)} stopLabel={stopLabel} />
          </MapView>
          {track.isFetching && (
            <div className="fd-monitor-map__state">
              <Spin />
            </div>
          )}
          {!track.isFetching && request && track.data && points.length === 0 && (
            <div className="fd-monitor-map__state" data-testid="track-empty">
              <Empty description={t('monitoring:track.empty')} />
            </div>
          )}
        </div>
        <div className="fd-monitor-panel">
          <Space size="large" wrap>
            <Statistic title={t('monitoring:track.distance')} value={track.data ? track.data.distanceKm.toFixed(1) : BLANK} suffix="km" />
            <Statistic title={t('monitoring:track.stops')} value={stops.length} />
            <Statistic title={t('monitoring:track.speeding')} value={speeding.length} />
          </Space>
          <Tabs
            items={[
              {
                key: 'stops',
                label: t('monitoring:track.stopList'),
                children: (
                  <Table<TrackStop>
                    size="small"
                    className="fd-monitor-track-list"
                    rowKey="from"
                    dataSource={stops}
                    pagination={false}
                    onRow={(s) => ({ onClick: () => seekTo(s.from), style: { cursor: 'pointer' } })}
                    columns={[
                      { dataIndex: 'from', title: t('monitoring:track.stopFrom'), render: (v: string) => formatTime(v, '{m}-{d} {h}:{i}') },
                      { dataIndex: 'durationS', title: t('monitoring:track.duration'), render: (v: number) => durationText(v, t) },
                    ]}
                    data-testid="track-stops"
                  />
                ),
              },
              {
                key: 'speeding',
                label: t('monitoring:track.speedingList'),
                children: (
                  <Table<TrackSpeeding>
                    size="small"
                    className="fd-monitor-track-list"
                    rowKey="from"
                    dataSource={speeding}
                    pagination={false}
                    onRow={(s) => ({ onClick: () => seekTo(s.from), style: { cursor: 'pointer' } })}
                    columns={[
                      { dataIndex: 'from', title: t('monitoring:track.stopFrom'), render: (v: string) => formatTime(v, '{m}-{d} {h}:{i}') },
                      { key: 'speed', title: t('monitoring:track.maxOverLimit'), render: (_: unknown, s) => `${s.maxSpeedKmh.toFixed(0)} / ${s.limitKmh.toFixed(0)} km/h` },
                    ]}
                    data-testid="track-speeding"
                  />
                ),
              },
            ]}
          />
        </div>
      </div>
      <div className="fd-monitor-panel">
        {points.length > 1 ? (
          <div className="fd-monitor-player">
            <Button type="primary" shape="circle" icon={player.playing ? <PauseCircleOutlined /> : <PlayCircleOutlined />} onClick={() => setPlayer((s) => togglePlay(s, points.length))} aria-label={t(player.playing ? 'monitoring:track.pause' : 'monitoring:track.play')} data-testid="track-play" />
            <Segmented<PlaySpeed> value={player.speed} onChange={(speed) => setPlayer((s) => ({ ...s, speed }))} options={PLAY_SPEEDS.map((v) => ({ value: v, label: `${v}×` }))} data-testid="track-speed" />
            <Slider className="fd-monitor-player__slider" min={0} max={points.length - 1} step={1} value={Math.floor(player.position)} onChange={(v: number) => setPlayer((s) => seek({ ...s, playing: false }, v, points.length))} tooltip={{ formatter: (v) => formatTime(points[v ?? 0]?.t) }} data-testid="track-slider" />
            <span data-testid="track-now">
              {here ? `${formatTime(here.t)} · ${here.speedKmh.toFixed(1)} km/h${here.soc === null || here.soc === undefined ? '' : ` · ${Math.round(here.soc)}%`}` : BLANK}
            </span>
          </div>
        ) : (
          <Alert type="info" showIcon title={t(request ? 'monitoring:track.empty' : 'monitoring:track.pick')} />
        )}
        {points.length > 1 && (
          <>
            <EChart option={speedOption} className="fd-monitor-chart" onClick={onChartClick} data-testid="track-speed-chart" />
            <EChart option={socOption} className="fd-monitor-chart" onClick={onChartClick} data-testid="track-soc-chart" />
          </>
        )}
      </div>
    </div>
  );
}
