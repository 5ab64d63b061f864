import { Alert, Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError, Code } from '@/lib/api-client';

/** A list that failed to load: a banner above the (empty) table with a retry button. */
export function LoadErrorBanner({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert
      type="error"
      showIcon
      className="fd-load-error"
      title={t('common.loadFailed')}
      description={error instanceof Error ? error.message : undefined}
      action={
        <Button size="small" onClick={onRetry}>
          {t('common.retry')}
        </Button>
      }
      data-testid="load-error"
    />
  );
}

/** A detail that failed to load: 'not found' for 4004, otherwise the error with a retry button. */
export function LoadErrorResult({ error, onRetry, extra }: { error: unknown; onRetry: () => void; extra?: React.ReactNode }) {
  const { t } = useTranslation();
  const notFound = error instanceof ApiError && error.code === Code.NotFound;
  return (
    <Result
      status={notFound ? '404' : 'error'}
      title={t(notFound ? 'common.notFound' : 'common.loadFailed')}
      subTitle={!notFound && error instanceof Error ? error.message : undefined}
      extra={[
        !notFound && (
          <Button key="retry" type="primary" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        ),
        extra,
      ]}
      data-testid="load-error"
    />
  );
}
