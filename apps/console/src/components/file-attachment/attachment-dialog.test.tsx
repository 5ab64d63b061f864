import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { AttachmentDialog } from './attachment-dialog';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const stored = (name: string) => ({ key: `ent-1/feedback/x/${name}`, name, size: 3, contentType: 'image/png', url: `/api/v1/files/download?key=${name}` });
const input = () => document.querySelector('input[type="file"]') as HTMLInputElement;

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init: RequestInit) =>
    url === '/api/v1/files' ? ok(stored(((init.body as FormData).get('file') as File).name)) : ok(null),
  );
  vi.stubGlobal('fetch', fetchMock);
  for (const fn of ['toastError', 'toastSuccess', 'toastWarning'] as const) vi.spyOn(notify, fn).mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('file-attachment dialog', () => {
  it('uploads to the upload endpoint with its purpose and confirms with the stored files', async () => {
    const onConfirm = vi.fn();
    renderWithProviders(<AttachmentDialog open purpose="feedback" onCancel={() => undefined} onConfirm={onConfirm} />);
    expect(screen.getByText('上传附件')).toBeInTheDocument();
    await userEvent.upload(input(), new File(['png'], 'shot.png', { type: 'image/png' }));
    await waitFor(() => expect(fetchMock.mock.calls.filter(([url]) => url === '/api/v1/files')).toHaveLength(1));
    const body = fetchMock.mock.calls.find(([url]) => url === '/api/v1/files')?.[1].body as FormData;
    expect(body.get('purpose')).toBe('feedback');
    expect(await screen.findByText('shot.png')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    await waitFor(() => expect(onConfirm).toHaveBeenCalledWith([{ name: 'shot.png', url: '/api/v1/files/download?key=shot.png', saveUrl: 'ent-1/feedback/x/shot.png' }]));
  });

  it('refuses to confirm without a file: 请先选择上传文件', async () => {
    const onConfirm = vi.fn();
    renderWithProviders(<AttachmentDialog open purpose="feedback" onCancel={() => undefined} onConfirm={onConfirm} />);
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    await waitFor(() => expect(notify.toastWarning).toHaveBeenCalledWith('请先选择上传文件'));
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('neither closes nor confirms while a file is uploading', async () => {
    fetchMock.mockImplementation((url: string) => (url === '/api/v1/files' ? new Promise(() => undefined) : ok(null)));
    const onCancel = vi.fn();
    const onConfirm = vi.fn();
    renderWithProviders(<AttachmentDialog open purpose="feedback" onCancel={onCancel} onConfirm={onConfirm} />);
    await userEvent.upload(input(), new File(['png'], 'shot.png', { type: 'image/png' }));
    await waitFor(() => expect(fetchMock.mock.calls.filter(([url]) => url === '/api/v1/files')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: /取\s*消/ }));
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    await waitFor(() => expect(notify.toastWarning).toHaveBeenCalledWith('文件正在上传中，请稍候'));
    expect(onCancel).not.toHaveBeenCalled();
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
