/** Small pieces the finance pages share: a status tag, the back button, a detail page's loading and error. */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Tag } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { PageLoading } from '@/components/page-loading';
import { codeLabel } from '@/lib/codes';

export const P = 'finance:';

/** A code as a coloured tag, labelled from `finance:<labels>.<code>`. */
export function CodeTag<T extends string>({ code, labels, colors }: { code?: T | null; labels: string; colors: Record<T, string> }) {
  const { t } = useTranslation();
  if (!code) return null;
  return <Tag color={colors[code]}>{codeLabel(t, `${P}${labels}`, code)}</Tag>;
}

export function BackButton({ to }: { to: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(to)}>
      {t(`${P}common.back`)}
    </Button>
  );
}

/** A detail query's page: its error with a retry, loading, then `render` of the data. */
export function DetailState<T>({ query, render }: { query: { data?: T; error: unknown; refetch: () => unknown }; render: (data: T) => ReactNode }) {
  if (query.error) return <LoadErrorResult error={query.error} onRetry={() => void query.refetch()} />;
  if (query.data === undefined) return <PageLoading />;
  return <>{render(query.data)}</>;
}
