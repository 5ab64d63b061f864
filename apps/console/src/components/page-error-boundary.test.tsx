import { act, fireEvent, screen } from '@testing-library/react';
import { vi } from 'vitest';
import { clearErrorLog, useErrorLog } from '@/lib/error-log';
import { renderWithProviders } from '@/testing/render';
import { PageErrorBoundary } from './page-error-boundary';

let shouldThrow = true;
function FlakyPage() {
  if (shouldThrow) throw new Error('列表数据异常');
  return <div>page content</div>;
}

function LogProbe() {
  const entries = useErrorLog();
  return <div data-testid="log">{JSON.stringify(entries)}</div>;
}

describe('page error boundary (console spec §2/§3)', () => {
  afterEach(() => {
    clearErrorLog();
    vi.restoreAllMocks();
  });

  it('shows an error state with a retry and logs message, stack, component stack and url', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    shouldThrow = true;
    renderWithProviders(
      <>
        <div>shell stays</div>
        <PageErrorBoundary>
          <FlakyPage />
        </PageErrorBoundary>
        <LogProbe />
      </>,
      { route: '/systemSetting/orgManagement' },
    );
    expect(screen.getByText('shell stays')).toBeInTheDocument();
    expect(screen.getByTestId('page-error')).toHaveTextContent('页面出错了');
    const [entry] = JSON.parse(screen.getByTestId('log').textContent ?? '[]');
    expect(entry.message).toBe('列表数据异常');
    expect(entry.stack).toContain('FlakyPage');
    expect(entry.info).toContain('FlakyPage');
    expect(entry.url).toContain('http');

    shouldThrow = false;
    act(() => fireEvent.click(screen.getByRole('button', { name: /重\s*试/ })));
    expect(screen.getByText('page content')).toBeInTheDocument();
  });
});
