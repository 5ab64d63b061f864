import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import DownloadRecordPage from './download-record';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const record = (id: string, status: number, extra: object = {}) => ({
  id,
  name: `车辆档案_${id}`,
  module: 'carFileList',
  status,
  requestedByName: '演示管理员',
  rowCount: 0,
  rowsDone: 0,
  rowsTotal: 0,
  failureReason: '',
  requestTime: '2026-11-23T06:00:00Z',
  finishTime: '',
  expireTime: '',
  downloadable: false,
  downloadUrl: '',
  ...extra,
});

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
  fetchMock = vi.fn((url: string) => {
    if (url.startsWith('/api/v1/export-records?') || url === '/api/v1/export-records')
      return ok({ list: [record('run', 2, { rowsDone: 250, rowsTotal: 1000 }), record('bad', 4, { failureReason: '导出失败' }), record('done', 3, { rowCount: 1000, downloadable: true })], total: 3 });
    return ok(record('x', 1));
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const posts = () => fetchMock.mock.calls.filter(([, init]) => (init as RequestInit | undefined)?.method === 'POST').map(([url]) => url);

describe('export records (live progress, cancel, retry)', () => {
  it('shows rows done of rows to write while an export runs', async () => {
    renderWithProviders(<DownloadRecordPage />, { route: '/downloadRecord' });
    expect(await screen.findByText('250 / 1000 条')).toBeInTheDocument();
    expect(screen.getByText('25%')).toBeInTheDocument();
    expect(screen.getByText('共 1000 条')).toBeInTheDocument();
  });

  it('cancels a running export after confirmation and retries a failed one', async () => {
    renderWithProviders(<DownloadRecordPage />, { route: '/downloadRecord' });
    const running = (await screen.findByText('车辆档案_run')).closest('tr') as HTMLElement;
    await userEvent.click(running.querySelector('[data-testid="export-cancel"]') as HTMLElement);
    await userEvent.click(await screen.findByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(posts()).toContain('/api/v1/export-records/run/cancel'));
    const failed = screen.getByText('车辆档案_bad').closest('tr') as HTMLElement;
    expect(failed.querySelector('[data-testid="export-cancel"]')).toBeNull();
    await userEvent.click(failed.querySelector('[data-testid="export-retry"]') as HTMLElement);
    await waitFor(() => expect(posts()).toContain('/api/v1/export-records/bad/retry'));
    const done = screen.getByText('车辆档案_done').closest('tr') as HTMLElement;
    expect(done.querySelector('[data-testid="export-retry"]')).toBeNull();
    expect(done.querySelector('[data-testid="export-download"]')).not.toBeDisabled();
  });
});
