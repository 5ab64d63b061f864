import { Tooltip } from 'antd';
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTimeIn } from '@/lib/format';
import '../video-messages';
import type { VideoResource } from '../api/video';

const DAY_MS = 24 * 3600 * 1000;

/** Midnight of a Beijing day (yyyy-MM-dd) as an instant. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00+08:00`);
}

/** Where an instant sits on the day's bar, 0 to 1 (clamped). */
export function fraction(day: string, at: number): number {
  return Math.min(1, Math.max(0, (at - dayStart(day)) / DAY_MS));
}

/** The instant a click at `x` of a bar `width` wide points at. */
export function instantAt(day: string, x: number, width: number): number {
  return dayStart(day) + Math.round(Math.min(1, Math.max(0, x / Math.max(1, width))) * DAY_MS / 1000) * 1000;
}

export interface VideoTimelineProps {
  /** The Beijing day shown, yyyy-MM-dd. */
  day: string;
  resources: VideoResource[];
  /** Where the playback is, if one runs. */
  position?: number;
  onPick: (at: number) => void;
}

/** The day's 24 hours with the recorder's resources on them; a click picks a moment to play from. */
export function VideoTimeline({ day, resources, position, onPick }: VideoTimelineProps) {
  const { t } = useTranslation();
  const click = (e: MouseEvent<HTMLDivElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    onPick(instantAt(day, e.clientX - box.left, box.width));
  };
  return (
    <Tooltip title={t('video:playback.timelineHint')} placement="top">
      <div className="video-timeline" onClick={click} data-testid="video-timeline">
        {resources.map((r) => {
          const start = fraction(day, Date.parse(r.startTime));
          const end = fraction(day, Date.parse(r.endTime));
          return (
            <div
              key={`${r.channel}:${r.startTime}:${r.endTime}`}
              className={`video-timeline-resource${r.alarm ? ' video-timeline-resource-alarm' : ''}`}
              style={{ left: `${start * 100}%`, width: `${Math.max(0, end - start) * 100}%` }}
              title={`${formatTimeIn(r.startTime, '{h}:{i}:{s}')} – ${formatTimeIn(r.endTime, '{h}:{i}:{s}')}`}
              data-testid="video-timeline-resource"
              data-start={r.startTime}
            />
          );
        })}
        {position !== undefined && <div className="video-timeline-cursor" style={{ left: `${fraction(day, position) * 100}%` }} data-testid="video-timeline-cursor" />}
        <div className="video-timeline-hours">
          {Array.from({ length: 13 }, (_, i) => (
            <span key={i} style={{ left: `${(i / 12) * 100}%` }}>
              {String(i * 2).padStart(2, '0')}
            </span>
          ))}
        </div>
      </div>
    </Tooltip>
  );
}
