import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Descriptions, Tag } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { ApiError, Code } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { useMarkNoticesRead, useNotice } from '../api/notices';

/** /noticeDetails?id=: one notice; opening an unread notice marks it read (and the badge falls). */
export default function NoticeDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const { data: notice, isLoading, error, refetch } = useNotice(id);
  const markRead = useMarkNoticesRead();
  const marked = useRef('');
  const { mutate } = markRead;

  useEffect(() => {
    if (notice && !notice.read && marked.current !== notice.id) {
      marked.current = notice.id;
      mutate({ ids: [notice.id] });
    }
  }, [notice, mutate]);

  const back = (
    <Button key="back" icon={<ArrowLeftOutlined />} onClick={() => navigate('/notice')}>
      {t('notice.backToList')}
    </Button>
  );
  if (!id) return <LoadErrorResult error={new ApiError(Code.NotFound, '')} onRetry={() => navigate('/notice')} extra={back} />;
  if (isLoading) return <PageLoading />;
  if (error || !notice) return <LoadErrorResult error={error} onRetry={() => void refetch()} extra={back} />;

  return (
    <div className="fd-detail-page" data-testid="notice-detail">
      <ModuleCard title={notice.title} extra={back}>
        <Descriptions
          size="small"
          column={3}
          items={[
            { key: 'category', label: t('notice.category'), children: t(`notice.categories.${notice.category}`, { defaultValue: notice.category }) },
            { key: 'publishTime', label: t('notice.publishTime'), children: formatTime(notice.publishTime) },
            {
              key: 'read',
              label: t('notice.readState'),
              children: <Tag color={notice.read || markRead.isSuccess ? 'default' : 'processing'}>{notice.read || markRead.isSuccess ? t('notice.read') : t('notice.unread')}</Tag>,
            },
          ]}
        />
        <div className="fd-notice__content" data-testid="notice-content">
          {notice.content}
        </div>
        {notice.link?.startsWith('/') && (
          <Button type="primary" data-testid="notice-link" onClick={() => navigate(notice.link)}>
            {t('notice.openLink')}
          </Button>
        )}
      </ModuleCard>
    </div>
  );
}
