import { Button, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { useHasPermission } from '@/lib/auth';
import { useUnreadNoticeCount } from '@/lib/counts';
import { listNotices, NOTICE_CATEGORIES, NOTICE_LIST_KEY, noticeQuery, useMarkNoticesRead, type Notice, type NoticeQuery } from '../api/notices';

/** /notice (`message/pageInfo`): the user's notices, newest first, filtered by read state and category. */
export default function NoticeListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const unread = useUnreadNoticeCount(useHasPermission('as:message:pageInfo'));
  const markRead = useMarkNoticesRead();

  const fields = useMemo<FilterField[]>(
    () => [
      {
        prop: 'read',
        label: t('notice.readState'),
        type: 'select',
        width: 120,
        options: [
          { value: 'unread', label: t('notice.unread') },
          { value: 'read', label: t('notice.read') },
        ],
      },
      { prop: 'category', label: t('notice.category'), type: 'select', width: 140, options: NOTICE_CATEGORIES.map((c) => ({ value: c, label: t(`notice.categories.${c}`) })) },
    ],
    [t],
  );
  const list = useListPage<Notice, NoticeQuery>({ fields, queryKey: NOTICE_LIST_KEY, toQuery: noticeQuery, fetch: listNotices });

  const open = (row: Notice) => navigate(`/noticeDetails?id=${encodeURIComponent(row.id)}`);
  const columns: ListColumn<Notice>[] = [
    {
      prop: 'title',
      label: t('notice.title'),
      minWidth: 240,
      render: (row) => (
        <Button type="link" className="fd-link-cell" onClick={() => open(row)} data-testid="notice-title">
          {!row.read && <span className="fd-dot" aria-label={t('notice.unread')} />}
          {row.title}
        </Button>
      ),
    },
    { prop: 'category', label: t('notice.category'), width: 120, formatter: (row) => t(`notice.categories.${row.category}`, { defaultValue: row.category }) },
    { prop: 'content', label: t('notice.content'), minWidth: 260, showOverflowTooltip: true },
    { prop: 'publishTime', label: t('notice.publishTime'), width: 180, formatter: (row) => formatTime(row.publishTime) },
    {
      prop: 'read',
      label: t('notice.readState'),
      width: 100,
      render: (row) => <Tag color={row.read ? 'default' : 'processing'}>{row.read ? t('notice.read') : t('notice.unread')}</Tag>,
    },
  ];

  const markAll = async () => {
    const answer = await markRead.mutateAsync({ all: true });
    toastSuccess(t('notice.markedRead', { count: answer.updated }));
  };

  return (
    <ListPage<Notice>
      testId="notice-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" disabled={unread === 0} loading={markRead.isPending} onClick={() => void markAll().catch(() => undefined)} data-testid="mark-all-read">
          {t('notice.markAllRead')}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1000, ...list.tableProps }}
    />
  );
}
