/**
 * Catches what a page throws while rendering: the page area shows an error state
 * with a retry (the shell around it keeps working), and the error, its stack,
 * React's component stack and the url go to the error-log dialog (console spec §2/§3).
 */
import { useQueryClient } from '@tanstack/react-query';
import { Button, Result } from 'antd';
import { Component, Fragment, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { addErrorLog } from '@/lib/error-log';

function PageErrorState({ error, onRetry }: { error: Error; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Result
      status="error"
      title={t('errorLog.pageFailed')}
      subTitle={error.message}
      extra={
        <Button type="primary" onClick={onRetry}>
          {t('common.retry')}
        </Button>
      }
      data-testid="page-error"
    />
  );
}

interface BoundaryProps {
  children: ReactNode;
  /** Run before the page mounts again (drops the data it crashed on). */
  onRetry?: () => void;
}

interface State {
  error?: Error;
  /** Bumped on retry so the page mounts afresh. */
  attempt: number;
}

class Boundary extends Component<BoundaryProps, State> {
  override state: State = { attempt: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    addErrorLog(error, info.componentStack ?? undefined);
  }

  private retry = () => {
    this.props.onRetry?.();
    this.setState((s) => ({ error: undefined, attempt: s.attempt + 1 }));
  };

  override render() {
    if (this.state.error) return <PageErrorState error={this.state.error} onRetry={this.retry} />;
    // A new key remounts the page on retry.
    return <Fragment key={this.state.attempt}>{this.props.children}</Fragment>;
  }
}

/**
 * The boundary around a page. A retry first drops the cached answers no mounted
 * component uses any more (the crashed page's), so the page loads them afresh
 * instead of failing on the same data again.
 */
export function PageErrorBoundary({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  return <Boundary onRetry={() => client.removeQueries({ type: 'inactive' })}>{children}</Boundary>;
}
