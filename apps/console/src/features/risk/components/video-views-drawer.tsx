import { Drawer, Input, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadErrorBanner } from '@/components/load-error';
import { PaginatedTable, type TableColumn } from '@/components/paginated-table';
import { BLANK, formatTime } from '@/lib/format';
import '../video-messages';
import { useVideoViews, type VideoView } from '../api/video';

/** A viewing's length in words (秒, 分, 小时). */
export function viewDuration(t: (key: string, options?: Record<string, unknown>) => string, seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return t('video:duration.seconds', { s });
  if (s < 3600) return t('video:duration.minutes', { m: Math.floor(s / 60), s: s % 60 });
  return t('video:duration.hours', { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
}

/** 观看记录: the viewing audit — who watched which camera, live or a recording, when and how long. */
export function VideoViewsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(20);
  const [plateSearch, setPlateSearch] = useState('');
  const views = useVideoViews({ page, size, plateSearch: plateSearch || undefined }, open);
  const list = views.data?.list ?? [];

  const columns: TableColumn<VideoView>[] = [
    { prop: 'plateNumber', label: t('video:views.plateNumber'), width: 110 },
    { prop: 'channel', label: t('video:views.channel'), width: 70 },
    { prop: 'kind', label: t('video:views.kind'), width: 100, render: (row) => (row.kind ? <Tag color={row.kind === 'LIVE' ? 'blue' : 'purple'}>{t(`video:views.kinds.${row.kind}`)}</Tag> : BLANK) },
    { prop: 'viewerName', label: t('video:views.viewer'), width: 110, formatter: (row) => row.viewerName || BLANK },
    { prop: 'startedAt', label: t('video:views.startedAt'), width: 170, formatter: (row) => formatTime(row.startedAt) },
    { prop: 'endedAt', label: t('video:views.endedAt'), width: 170, formatter: (row) => (row.endedAt ? formatTime(row.endedAt) : t('video:views.ongoing')) },
    { prop: 'durationSeconds', label: t('video:views.duration'), width: 120, formatter: (row) => viewDuration(t, row.durationSeconds) },
  ];

  return (
    <Drawer open={open} size={900} title={t('video:views.title')} onClose={onClose} data-testid="video-views-drawer">
      <Input.Search
        allowClear
        placeholder={t('video:tree.search')}
        style={{ width: 240, marginBottom: 12 }}
        onSearch={(v) => {
          setPlateSearch(v.trim());
          setPage(1);
        }}
      />
      <LoadErrorBanner error={views.error} onRetry={() => void views.refetch()} />
      <PaginatedTable<VideoView>
        rowKey="id"
        columns={columns}
        data={list}
        total={views.data?.total ?? 0}
        page={page}
        size={size}
        loading={views.isFetching}
        onPageChange={(p, s) => {
          setPage(p);
          setSize(s);
        }}
      />
    </Drawer>
  );
}
