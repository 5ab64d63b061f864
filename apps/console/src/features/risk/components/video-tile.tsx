import { Button } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import '../video-messages';
import { playMedia, type PlayerHandle, type PlayerState } from './mse-player';

export interface VideoTileProps {
  /** What to play; nothing shows the empty tile. */
  url?: string;
  /** Above the picture: plate and channel, the tile's controls. */
  header?: ReactNode;
  /** Shown when nothing plays. */
  placeholder?: ReactNode;
  selected?: boolean;
  onSelect?: () => void;
  /** The player of what plays now (pause, resume, rate), or null. */
  onPlayer?: (player: PlayerHandle | null) => void;
  onState?: (state: PlayerState) => void;
  testId?: string;
}

/**
 * One picture of the video pages: plays `url` through the shared MSE player and
 * says what is happening — loading, playing, vehicle offline, no camera, or an
 * error with a retry. A new `url` (or a retry) starts a new stream; leaving
 * stops it, which ends the viewing.
 */
export function VideoTile({ url, header, placeholder, selected, onSelect, onPlayer, onState, testId = 'video-tile' }: VideoTileProps) {
  const { t } = useTranslation();
  const video = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<PlayerState | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reportPlayer = useRef(onPlayer);
  const reportState = useRef(onState);
  useEffect(() => {
    reportPlayer.current = onPlayer;
    reportState.current = onState;
  });

  useEffect(() => {
    const element = video.current;
    if (!url || !element) {
      setState(null);
      return;
    }
    const player = playMedia({
      video: element,
      url,
      onState: (next) => {
        setState(next);
        reportState.current?.(next);
      },
    });
    reportPlayer.current?.(player);
    return () => {
      player.stop();
      reportPlayer.current?.(null);
    };
  }, [url, attempt]);

  const overlay = (() => {
    if (!url) return <div className="video-tile-hint">{placeholder ?? t('video:tile.empty')}</div>;
    switch (state?.kind) {
      case undefined:
      case 'loading':
        return <div className="video-tile-hint">{t('video:tile.loading')}</div>;
      case 'playing':
        return null;
      case 'offline':
        return <Problem title={t('video:tile.offline')} detail={t('video:tile.offlineDetail')} retry={() => setAttempt((n) => n + 1)} />;
      case 'noCamera':
        return <Problem title={t('video:tile.noCamera')} detail={t('video:tile.noCameraDetail')} />;
      case 'unsupported':
        return <Problem title={t('video:tile.error')} detail={t('video:tile.unsupported')} />;
      case 'busy':
        return <Problem title={t('video:tile.error')} detail={state.message} retry={() => setAttempt((n) => n + 1)} />;
      case 'ended':
        return <Problem title={t('video:tile.ended')} retry={() => setAttempt((n) => n + 1)} />;
      case 'error':
        return <Problem title={t('video:tile.error')} detail={state.message} retry={() => setAttempt((n) => n + 1)} />;
    }
  })();

  return (
    <div
      className={`video-tile${selected ? ' video-tile-selected' : ''}`}
      onClick={onSelect}
      data-testid={testId}
      data-state={url ? (state?.kind ?? 'loading') : 'empty'}
    >
      {header && <div className="video-tile-header">{header}</div>}
      <div className="video-tile-body">
        <video ref={video} muted autoPlay playsInline data-testid="video-element" />
        {overlay && <div className="video-tile-overlay">{overlay}</div>}
      </div>
    </div>
  );
}

function Problem({ title, detail, retry }: { title: string; detail?: string; retry?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="video-tile-problem" data-testid="video-tile-problem">
      <strong>{title}</strong>
      {detail && <span>{detail}</span>}
      {retry && (
        <Button
          size="small"
          onClick={(e) => {
            e.stopPropagation();
            retry();
          }}
          data-testid="video-tile-retry"
        >
          {t('video:tile.retry')}
        </Button>
      )}
    </div>
  );
}
