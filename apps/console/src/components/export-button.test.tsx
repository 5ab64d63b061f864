import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import { api, ApiError } from '@/lib/api-client';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { ExportButton } from './export-button';

let error: ReturnType<typeof vi.spyOn>;
let success: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  error = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  success = vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('export button (a job started on the server; its failure reads 导出失败)', () => {
  it('starts the export silently and says where the file will be', async () => {
    const startExport = vi.fn(() => Promise.resolve({ id: 'r1' }));
    renderWithProviders(<ExportButton startExport={startExport} />);
    await userEvent.click(screen.getByRole('button', { name: /导\s*出/ }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('导出结果请到右上方个人信息下【导出记录】中查看下载结果'));
    expect(startExport).toHaveBeenCalledWith({ silent: true });
    expect(error).not.toHaveBeenCalled();
  });

  it('shows the server’s reason when the export is refused', async () => {
    renderWithProviders(<ExportButton startExport={() => Promise.reject(new ApiError(4000, '每次批量查询，最大不超过250台', [], undefined, '每次批量查询，最大不超过250台'))} />);
    await userEvent.click(screen.getByRole('button', { name: /导\s*出/ }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('每次批量查询，最大不超过250台'));
    expect(success).not.toHaveBeenCalled();
  });

  it('says 导出失败 when the failure has no reason', async () => {
    renderWithProviders(<ExportButton startExport={() => Promise.reject(new Error(''))} />);
    await userEvent.click(screen.getByRole('button', { name: /导\s*出/ }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('导出失败'));
  });

  // The request client fills every failure's message (请求数据异常, 服务异常…); the export says 导出失败 instead.
  it.each([
    ['a refusal without msg', () => Promise.resolve(new Response(JSON.stringify({ code: 4009, data: null }), { status: 409 }))],
    ['a 5xx', () => Promise.resolve(new Response(JSON.stringify({ code: 5000, msg: 'internal', data: null }), { status: 500 }))],
    ['no answer', () => Promise.reject(new TypeError('Failed to fetch'))],
  ])('says exactly 导出失败 for %s', async (_, answer) => {
    vi.stubGlobal('fetch', vi.fn(answer));
    renderWithProviders(<ExportButton startExport={(options) => api.post('/api/v1/vehicles/export', { ...options, params: { query: {} } })} />);
    await userEvent.click(screen.getByRole('button', { name: /导\s*出/ }));
    await waitFor(() => expect(error).toHaveBeenCalled());
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith('导出失败');
  });

  it('shows the server’s msg that came through the request client', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 4000, msg: '导出条件有误', data: null }), { status: 400 }))));
    renderWithProviders(<ExportButton startExport={(options) => api.post('/api/v1/vehicles/export', { ...options, params: { query: {} } })} />);
    await userEvent.click(screen.getByRole('button', { name: /导\s*出/ }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('导出条件有误'));
  });

  it('starts one export for a double click', async () => {
    const startExport = vi.fn(() => Promise.resolve({}));
    renderWithProviders(<ExportButton startExport={startExport} />);
    const button = screen.getByRole('button', { name: /导\s*出/ });
    await userEvent.dblClick(button);
    await waitFor(() => expect(success).toHaveBeenCalled());
    expect(startExport).toHaveBeenCalledTimes(1);
  });
});
