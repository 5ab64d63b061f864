import { Empty, Menu, Skeleton } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { LoadErrorBanner, LoadErrorResult } from '@/components/load-error';
import { MarkdownView } from '@/components/markdown-view';
import { formatTime } from '@/lib/format';
import { groupArticles, useArticle, useArticles } from '../api/help';

/** Help centre › operation manual: pages by category on the left, the chosen page (or `?id=`) on the right. */
export default function OperationManualPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  // The chosen page is view state, not a new address: the tab bar keeps one view per address.
  const [chosen, setChosen] = useState(() => params.get('id') ?? '');
  const { data: articles, isLoading, error, refetch } = useArticles();
  const groups = useMemo(() => groupArticles(articles ?? []), [articles]);
  const selected = chosen || groups[0]?.articles[0]?.id || '';
  const article = useArticle(selected);

  let body: React.ReactNode;
  if (!selected) body = isLoading ? <Skeleton active /> : <Empty description={t('help.noArticles')} />;
  else if (article.isLoading) body = <Skeleton active />;
  else if (article.error || !article.data) body = <LoadErrorResult error={article.error} onRetry={() => void article.refetch()} />;
  else
    body = (
      <article data-testid="manual-article">
        <h1 className="fd-manual__title">{article.data.title}</h1>
        <div className="fd-muted">{t('help.updatedAt', { time: formatTime(article.data.updateTime) })}</div>
        <MarkdownView source={article.data.content} />
      </article>
    );

  return (
    <div className="fd-manual" data-testid="operation-manual">
      <aside className="fd-manual__nav">
        <LoadErrorBanner error={error} onRetry={() => void refetch()} />
        {isLoading ? (
          <Skeleton active />
        ) : (
          <Menu
            mode="inline"
            selectedKeys={[selected]}
            defaultOpenKeys={groups.map((g) => g.category)}
            onClick={({ key }) => setChosen(key)}
            items={groups.map((g) => ({ key: g.category, type: 'group', label: g.category, children: g.articles.map((a) => ({ key: a.id, label: a.title })) }))}
          />
        )}
      </aside>
      <section className="fd-manual__body">{body}</section>
    </div>
  );
}
