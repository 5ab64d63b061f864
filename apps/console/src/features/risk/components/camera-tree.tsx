import { Alert, Badge, Empty, Input, Spin, Tree } from 'antd';
import type { TreeDataNode } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadErrorBanner } from '@/components/load-error';
import '../video-messages';
import { TREE_SIZE, useCameraVehicles, type CameraVehicle } from '../api/video';

export interface CameraTreeProps {
  /** Show each vehicle's channels as leaves (the monitor page). */
  withChannels?: boolean;
  selectedVehicleId?: string;
  onVehicle?: (vehicle: CameraVehicle) => void;
  onChannel?: (vehicle: CameraVehicle, channel: number) => void;
}

/** Vehicles grouped by organisation, in the list's plate order. */
export function cameraTree(vehicles: CameraVehicle[], withChannels: boolean, channelLabel: (n: number) => string, online: (v: CameraVehicle) => string): TreeDataNode[] {
  const orgs = new Map<string, TreeDataNode & { children: TreeDataNode[] }>();
  for (const v of vehicles) {
    let org = orgs.get(v.orgId);
    if (!org) {
      org = { key: `org:${v.orgId}`, title: v.orgName || '--', selectable: false, children: [] };
      orgs.set(v.orgId, org);
    }
    org.children.push({
      key: `vehicle:${v.vehicleId}`,
      title: (
        <span data-testid="camera-vehicle" data-plate={v.plateNumber}>
          <Badge status={v.online ? 'success' : 'default'} /> {v.plateNumber} <small className="camera-tree-state">{online(v)}</small>
        </span>
      ),
      children: withChannels
        ? v.channels.map((n) => ({
            key: `channel:${v.vehicleId}:${n}`,
            title: (
              <span data-testid="camera-channel" data-plate={v.plateNumber} data-channel={n}>
                {channelLabel(n)}
              </span>
            ),
            isLeaf: true,
          }))
        : undefined,
      isLeaf: !withChannels,
    });
  }
  return [...orgs.values()];
}

/**
 * The vehicles in the user's reach that have cameras, by organisation, searchable
 * by plate; a vehicle or (with `withChannels`) one of its channels is picked.
 */
export function CameraTree({ withChannels = false, selectedVehicleId, onVehicle, onChannel }: CameraTreeProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);
  const query = useCameraVehicles(search);
  const vehicles = useMemo(() => query.data?.list ?? [], [query.data]);
  const treeData = useMemo(
    () =>
      cameraTree(
        vehicles,
        withChannels,
        (n) => t('video:tree.channel', { n }),
        (v) => (v.online ? t('video:tree.online') : t('video:tree.offline')),
      ),
    [vehicles, withChannels, t],
  );
  const byId = useMemo(() => new Map(vehicles.map((v) => [v.vehicleId, v])), [vehicles]);
  const total = query.data?.total ?? 0;

  const pick = (key: string) => {
    const [kind, id, channel] = key.split(':');
    const vehicle = byId.get(id);
    if (!vehicle) return;
    if (kind === 'vehicle') onVehicle?.(vehicle);
    if (kind === 'channel') onChannel?.(vehicle, Number(channel));
  };

  return (
    <div className="camera-tree" data-testid="camera-tree">
      <Input.Search allowClear placeholder={t('video:tree.search')} value={typed} onChange={(e) => setTyped(e.target.value)} onSearch={(v) => setSearch(v.trim())} data-testid="camera-tree-search" />
      <LoadErrorBanner error={query.error} onRetry={() => void query.refetch()} />
      {total > vehicles.length && <Alert type="info" showIcon title={t('video:tree.more', { total, shown: TREE_SIZE })} />}
      <Spin spinning={query.isFetching && !vehicles.length}>
        {vehicles.length ? (
          <Tree
            key={`${search}:${withChannels}`}
            treeData={treeData}
            defaultExpandAll
            blockNode
            selectedKeys={selectedVehicleId ? [`vehicle:${selectedVehicleId}`] : []}
            onSelect={(_, info) => pick(String(info.node.key))}
          />
        ) : (
          !query.isFetching && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('video:tree.empty')} />
        )}
      </Spin>
    </div>
  );
}
