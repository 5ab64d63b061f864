import { Button, Segmented, Space, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import '../video-messages';
import '../video.css';
import { liveUrl, type CameraVehicle, type StreamQuality } from '../api/video';
import { CameraTree } from '../components/camera-tree';
import { VideoTile } from '../components/video-tile';
import { VideoViewsDrawer } from '../components/video-views-drawer';

/** What one tile plays. */
interface Playing {
  vehicle: CameraVehicle;
  channel: number;
  stream: StreamQuality;
}

const LAYOUTS = [1, 4, 9] as const;
type Layout = (typeof LAYOUTS)[number];

/** The tile a picked channel goes to: the selected one, else the first empty one. */
export function nextTile(tiles: (Playing | null)[], selected: number, count: number): number {
  if (selected < count) return selected;
  const empty = tiles.slice(0, count).findIndex((t) => !t);
  return empty < 0 ? 0 : empty;
}

/**
 * 视频监控 (monitor, as:risk:video): the vehicles with cameras in a searchable
 * tree; a grid of 1, 4 or 9 pictures; a channel picked in the tree plays in the
 * selected picture (then the selection moves to the next empty one), each with
 * its main/sub stream switch and close; the viewing audit in a drawer.
 */
export default function VideoMonitorPage() {
  const { t } = useTranslation();
  const [layout, setLayout] = useState<Layout>(4);
  const [tiles, setTiles] = useState<(Playing | null)[]>(() => Array(9).fill(null));
  const [selected, setSelected] = useState(0);
  const [auditOpen, setAuditOpen] = useState(false);

  const play = (vehicle: CameraVehicle, channel: number) => {
    const at = nextTile(tiles, selected, layout);
    const next = tiles.map((tile, i) => (i === at ? { vehicle, channel, stream: tile?.stream ?? 'main' } : tile));
    setTiles(next);
    const empty = next.slice(0, layout).findIndex((tile, i) => !tile && i !== at);
    setSelected(empty < 0 ? at : empty);
  };
  const update = (index: number, change: Partial<Playing> | null) =>
    setTiles((all) => all.map((tile, i) => (i === index ? (change && tile ? { ...tile, ...change } : null) : tile)));

  return (
    <div className="video-page" data-testid="video-monitor">
      <div className="video-page-side">
        <CameraTree withChannels onChannel={play} />
      </div>
      <div className="video-page-main">
        <div className="video-toolbar">
          <Space>
            <span>{t('video:monitor.layout')}</span>
            <Segmented<Layout>
              value={layout}
              onChange={(value) => {
                setLayout(value);
                setSelected((s) => (s < value ? s : 0));
              }}
              options={LAYOUTS.map((n) => ({ value: n, label: String(n) }))}
              data-testid="video-layout"
            />
            <span className="camera-tree-state">{t('video:monitor.pickHint')}</span>
          </Space>
          <Button onClick={() => setAuditOpen(true)} data-testid="video-audit">
            {t('video:monitor.audit')}
          </Button>
        </div>
        <div className="video-grid" style={{ gridTemplateColumns: `repeat(${Math.sqrt(layout)}, 1fr)` }}>
          {tiles.slice(0, layout).map((tile, i) => (
            <VideoTile
              key={i}
              url={tile ? liveUrl(tile.vehicle.vehicleId, tile.channel, tile.stream) : undefined}
              selected={i === selected}
              onSelect={() => setSelected(i)}
              header={
                tile && (
                  <>
                    <span>
                      {tile.vehicle.plateNumber} · {t('video:tree.channel', { n: tile.channel })}
                    </span>
                    <Space size={4} onClick={(e) => e.stopPropagation()}>
                      <Segmented<StreamQuality>
                        size="small"
                        value={tile.stream}
                        onChange={(stream) => update(i, { stream })}
                        options={[
                          { value: 'main', label: t('video:monitor.stream.main') },
                          { value: 'sub', label: t('video:monitor.stream.sub') },
                        ]}
                      />
                      <Tooltip title={t('video:monitor.close')}>
                        <Button size="small" type="text" style={{ color: '#fff' }} onClick={() => update(i, null)} data-testid="video-tile-close">
                          ✕
                        </Button>
                      </Tooltip>
                    </Space>
                  </>
                )
              }
            />
          ))}
        </div>
      </div>
      <VideoViewsDrawer open={auditOpen} onClose={() => setAuditOpen(false)} />
    </div>
  );
}
