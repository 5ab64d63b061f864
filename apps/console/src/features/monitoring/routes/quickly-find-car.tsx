import { AutoComplete, Badge, Empty, Input, Space, Spin, TreeSelect } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ClusteredMarkers } from '@/components/map/clustered-markers';
import { MapOverlay, MapView, useMapApi } from '@/components/map/map-view';
import { LoadErrorBanner } from '@/components/load-error';
import { toastWarning } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import { useOrgTreeOptions } from '@/lib/org-options';
import type { LatestPosition, PositionStatus } from '../api/positions';
import { useLivePositions } from '../api/use-live-positions';
import { countStatuses, effectiveStatus, POSITION_STATUSES, searchPlates } from '../components/live-positions';
import { StatusLegend } from '../components/status-legend';
import { clusterStatus, STATUS_COLORS } from '../components/status';
import { VehicleCard } from '../components/vehicle-card';
import { PATHS, pathWith } from '../paths';

/** Zoom the map goes to when a vehicle is picked from the search. */
const FOCUS_ZOOM = 15;

/** Keeps the followed vehicle centred; a drag of the map ends following. */
function Follow({ vehicle, on, onStop }: { vehicle?: LatestPosition; on: boolean; onStop: () => void }) {
  const api = useMapApi();
  useEffect(() => {
    if (!api || !on || !vehicle) return;
    api.map.panTo(api.toMap(vehicle), { animate: true });
  }, [api, on, vehicle]);
  useEffect(() => {
    if (!api || !on) return;
    api.map.on('dragstart', onStop);
    return () => {
      api.map.off('dragstart', onStop);
    };
  }, [api, on, onStop]);
  return null;
}

/** Moves the map to a vehicle once per request (search pick). */
function FlyTo({ target }: { target?: { vehicle: LatestPosition; seq: number } }) {
  const api = useMapApi();
  useEffect(() => {
    if (!api || !target) return;
    api.map.setView(api.toMap(target.vehicle), Math.max(api.map.getZoom(), FOCUS_ZOOM));
  }, [api, target]);
  return null;
}

/** 车辆监控 (quicklyFindCar): every vehicle in reach on a live map, clustered, by status. */
export default function QuicklyFindCarPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const orgs = useOrgTreeOptions();
  const [orgIds, setOrgIds] = useState<string[]>([]);
  const query = useMemo(() => ({ orgIds: orgIds.length ? orgIds : undefined }), [orgIds]);
  const live = useLivePositions(query);
  const [shown, setShown] = useState<Set<PositionStatus>>(() => new Set(POSITION_STATUSES));
  const [selectedId, setSelectedId] = useState<string>();
  const [following, setFollowing] = useState(false);
  const [search, setSearch] = useState('');
  const [flyTarget, setFlyTarget] = useState<{ vehicle: LatestPosition; seq: number }>();

  const counts = useMemo(() => countStatuses(live.list, live.now), [live.list, live.now]);
  const visible = useMemo(() => live.list.filter((p) => shown.has(effectiveStatus(p, live.now))), [live.list, shown, live.now]);
  const selected = useMemo(() => live.list.find((p) => p.vehicleId === selectedId), [live.list, selectedId]);
  const matches = useMemo(() => searchPlates(live.list, search), [live.list, search]);
  const stopFollowing = useCallback(() => setFollowing(false), []);

  const pick = (vehicle: LatestPosition) => {
    setSelectedId(vehicle.vehicleId);
    setFlyTarget((prev) => ({ vehicle, seq: (prev?.seq ?? 0) + 1 }));
  };
  const submitSearch = (text: string) => {
    const found = searchPlates(live.list, text);
    if (found.length) pick(found[0]);
    else if (text.trim()) toastWarning(t('monitoring:live.notFound'));
  };

  const stream = live.streamState === 'open' ? { status: 'success' as const, text: t('monitoring:live.streamOpen') } : live.streamState === 'closed' ? { status: 'default' as const, text: t('monitoring:live.streamClosed') } : { status: 'processing' as const, text: t('monitoring:live.streamReconnecting') };

  return (
    <div className="fd-monitor-page" data-testid="quickly-find-car">
      <div className="fd-monitor-toolbar">
        <Space wrap>
          <AutoComplete
            style={{ width: 240 }}
            value={search}
            onChange={setSearch}
            options={matches.map((p) => ({ value: p.plateNumber, label: p.plateNumber }))}
            onSelect={(plate: string) => submitSearch(plate)}
          >
            <Input.Search placeholder={t('monitoring:live.searchPlaceholder')} allowClear onSearch={submitSearch} data-testid="plate-search" />
          </AutoComplete>
          <TreeSelect
            style={{ width: 240 }}
            multiple
            allowClear
            treeData={orgs}
            value={orgIds}
            onChange={(v: string[]) => setOrgIds(v)}
            showSearch={{ treeNodeFilterProp: 'title' }}
            placeholder={t('monitoring:live.orgPlaceholder')}
            maxTagCount="responsive"
          />
        </Space>
        <Badge status={stream.status} text={stream.text} data-testid="stream-state" />
      </div>
      <LoadErrorBanner error={live.error} onRetry={() => void live.refetch()} />
      {live.truncated && <div className="fd-monitor-note">{t('monitoring:live.truncated')}</div>}
      <div className="fd-monitor-map">
        <MapView data-testid="live-map">
          <ClusteredMarkers<LatestPosition>
            items={visible}
            keyOf={(p) => p.vehicleId}
            position={(p) => p}
            color={(p) => STATUS_COLORS[effectiveStatus(p, live.now)]}
            clusterColor={(items) => STATUS_COLORS[clusterStatus(items.map((p) => effectiveStatus(p, live.now)))]}
            clusterBadge={(items) => items.reduce((n, p) => n + (effectiveStatus(p, live.now) === 'alarm' ? 1 : 0), 0)}
            heading={(p) => (effectiveStatus(p, live.now) === 'driving' ? p.heading : undefined)}
            label={(p) => p.plateNumber}
            selectedKey={selectedId}
            onSelect={(p) => setSelectedId(p.vehicleId)}
          />
          <Follow vehicle={selected} on={following} onStop={stopFollowing} />
          <FlyTo target={flyTarget} />
          <MapOverlay position="topright">
            <StatusLegend counts={counts} shown={shown} onChange={setShown} />
          </MapOverlay>
          {selected && (
            <MapOverlay position="bottomleft">
              <VehicleCard
                vehicle={selected}
                now={live.now}
                following={following}
                onFollow={setFollowing}
                onTrack={() => navigate(pathWith(PATHS.trackPlayback, { vehicleId: selected.vehicleId, plate: selected.plateNumber }))}
                onClose={() => {
                  setSelectedId(undefined);
                  setFollowing(false);
                }}
              />
            </MapOverlay>
          )}
        </MapView>
        {live.isLoading && (
          <div className="fd-monitor-map__state">
            <Spin tip={t('common.loading')}>
              <div style={{ width: 120, height: 60 }} />
            </Spin>
          </div>
        )}
        {!live.isLoading && !live.error && live.list.length === 0 && (
          <div className="fd-monitor-map__state" data-testid="live-empty">
            <Empty description={t('monitoring:live.empty')} />
          </div>
        )}
      </div>
    </div>
  );
}
