import { Button, DatePicker, Empty, Segmented, Select, Space, Tag } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTimeIn, serviceToday } from '@/lib/format';
import '../video-messages';
import '../video.css';
import { playbackUrl, useControlPlayback, useVideoResources, type CameraVehicle } from '../api/video';
import { CameraTree } from '../components/camera-tree';
import type { PlayerHandle, PlayerState } from '../components/mse-player';
import { VideoTile } from '../components/video-tile';
import { VideoTimeline } from '../components/video-timeline';

const SPEEDS = [1, 2, 4] as const;
type Speed = (typeof SPEEDS)[number];

/** A playback asked for: from `from` (epoch ms) at `speed`; `attempt` tells a replay of the same moment apart. */
interface Session {
  from: number;
  speed: Speed;
  attempt: number;
}

/** How many times a playback refused as busy (the previous one still stopping) is asked again. */
const BUSY_RETRIES = 5;

/**
 * 视频回放 (playback, as:risk:video): a vehicle from the camera tree, a channel
 * and a Beijing day; the recorder's resources on the day's timeline; a click on
 * the timeline (or a resource) plays from that moment, played again from a new
 * click (seek); pause, resume and 2×/4× are sent to the terminal (0x9202).
 */
export default function VideoPlaybackPage() {
  const { t } = useTranslation();
  const [vehicle, setVehicle] = useState<CameraVehicle | null>(null);
  const [channel, setChannel] = useState<number | undefined>();
  const [day, setDay] = useState(serviceToday());
  const [session, setSession] = useState<Session | null>(null);
  const [paused, setPaused] = useState(false);
  const [position, setPosition] = useState<number | undefined>();
  const player = useRef<PlayerHandle | null>(null);
  const busyTries = useRef(0);
  const resources = useVideoResources(vehicle?.vehicleId, channel, day);
  const control = useControlPlayback(vehicle?.vehicleId);

  const pickVehicle = (v: CameraVehicle) => {
    setVehicle(v);
    setChannel(v.channels[0]);
    setSession(null);
  };
  const playFrom = (from: number, speed: Speed = session?.speed ?? 1) => {
    busyTries.current = 0;
    setPaused(false);
    setPosition(from);
    setSession((s) => ({ from, speed, attempt: (s?.attempt ?? 0) + 1 }));
  };

  // The cursor follows the playback: its start plus what the video played, at its speed.
  const played = useRef({ since: 0, base: 0 });
  const positionNow = useRef(position);
  useEffect(() => {
    positionNow.current = position;
  });
  useEffect(() => {
    if (!session || paused) return;
    played.current = { since: Date.now(), base: positionNow.current ?? session.from };
    const timer = setInterval(() => {
      const { since, base } = played.current;
      setPosition(base + (Date.now() - since) * session.speed);
    }, 1000);
    return () => clearInterval(timer);
    // Restarted only when the playback or its pace changes, from where the cursor is.
  }, [session, paused]);

  const onState = (state: PlayerState) => {
    // A playback still stopping on the terminal refuses the next one for a moment.
    if (state.kind === 'busy' && session && busyTries.current < BUSY_RETRIES) {
      busyTries.current += 1;
      const again = session;
      setTimeout(() => setSession((s) => (s === again ? { ...again, attempt: again.attempt + 1 } : s)), 1000);
    }
  };

  const send = async (body: Parameters<typeof control.mutateAsync>[0]) => {
    if (!vehicle || !channel) return;
    await control.mutateAsync(body);
  };
  const pause = async () => {
    if (!channel) return;
    await send({ channel, action: 'pause' });
    player.current?.pause();
    setPaused(true);
  };
  const resume = async () => {
    if (!channel) return;
    await send({ channel, action: 'resume' });
    player.current?.resume();
    setPaused(false);
  };
  const changeSpeed = async (speed: Speed) => {
    if (!channel || !session) return;
    await send({ channel, action: 'speed', speed });
    player.current?.setRate(speed);
    played.current = { since: Date.now(), base: position ?? session.from };
    setSession({ ...session, speed });
  };

  const list = resources.data ?? [];
  const url = vehicle && channel && session ? `${playbackUrl(vehicle.vehicleId, channel, new Date(session.from).toISOString(), session.speed)}` : undefined;

  return (
    <div className="video-page" data-testid="video-playback">
      <div className="video-page-side">
        <CameraTree selectedVehicleId={vehicle?.vehicleId} onVehicle={pickVehicle} />
      </div>
      <div className="video-page-main">
        <div className="video-toolbar">
          <Space wrap>
            <span>
              {t('video:playback.vehicle')}: <strong data-testid="playback-plate">{vehicle?.plateNumber ?? t('video:playback.pickVehicle')}</strong>
            </span>
            <span>{t('video:playback.channel')}</span>
            <Select<number>
              style={{ width: 120 }}
              value={channel}
              disabled={!vehicle}
              onChange={(c) => {
                setChannel(c);
                setSession(null);
              }}
              options={(vehicle?.channels ?? []).map((n) => ({ value: n, label: t('video:tree.channel', { n }) }))}
              data-testid="playback-channel"
            />
            <span>{t('video:playback.day')}</span>
            <DatePicker
              allowClear={false}
              value={dayjs(day)}
              disabledDate={(d: Dayjs) => d.isAfter(dayjs(), 'day')}
              onChange={(d: Dayjs | null) => {
                if (!d) return;
                setDay(d.format('YYYY-MM-DD'));
                setSession(null);
              }}
              data-testid="playback-day"
            />
            <Button type="primary" disabled={!vehicle || !channel} loading={resources.isFetching} onClick={() => void resources.refetch()} data-testid="playback-query">
              {t('video:playback.query')}
            </Button>
          </Space>
          {session && (
            <Space>
              {paused ? (
                <Button onClick={() => void resume().catch(() => undefined)} data-testid="playback-resume">
                  {t('video:playback.resume')}
                </Button>
              ) : (
                <Button onClick={() => void pause().catch(() => undefined)} data-testid="playback-pause">
                  {t('video:playback.pause')}
                </Button>
              )}
              <span>{t('video:playback.speed')}</span>
              <Segmented<Speed> value={session.speed} onChange={(s) => void changeSpeed(s).catch(() => undefined)} options={SPEEDS.map((s) => ({ value: s, label: `${s}×` }))} data-testid="playback-speed" />
              <Button onClick={() => setSession(null)} data-testid="playback-stop">
                {t('video:playback.stop')}
              </Button>
            </Space>
          )}
        </div>
        <LoadErrorBanner error={resources.error} onRetry={() => void resources.refetch()} />
        {vehicle && channel && (
          <>
            <VideoTimeline day={day} resources={list} position={session ? position : undefined} onPick={(at) => playFrom(at)} />
            {!resources.isFetching && !list.length && !resources.error && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('video:playback.noResources')} />}
            {list.length > 0 && (
              <Space wrap size={[6, 6]} data-testid="playback-resources">
                {list.map((r) => (
                  <Tag.CheckableTag
                    key={`${r.startTime}:${r.endTime}`}
                    checked={!!session && session.from >= Date.parse(r.startTime) && session.from < Date.parse(r.endTime)}
                    onChange={() => playFrom(Date.parse(r.startTime))}
                    data-testid="playback-resource"
                  >
                    {formatTimeIn(r.startTime, '{h}:{i}:{s}')} – {formatTimeIn(r.endTime, '{h}:{i}:{s}')}
                    {r.alarm ? ` · ${t('video:playback.alarm')}` : ''}
                  </Tag.CheckableTag>
                ))}
              </Space>
            )}
          </>
        )}
        <div className="video-grid" style={{ gridTemplateColumns: '1fr', minHeight: 360 }}>
          <VideoTile
            key={session?.attempt ?? 0}
            url={url}
            placeholder={vehicle ? t('video:playback.timelineHint') : t('video:playback.pickVehicle')}
            onPlayer={(p) => {
              player.current = p;
            }}
            onState={onState}
            testId="playback-tile"
            header={session && position !== undefined ? <span>{`${t('video:playback.position')}: ${formatTimeIn(position)}`}</span> : undefined}
          />
        </div>
      </div>
    </div>
  );
}
