import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { FileLinkViewer } from './file-link-viewer';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });
const FILE_PERMISSION = 'as:maintain:file';
const imageLink = { url: '/api/v1/files/download?key=ent-1%2Ffeedback%2Fx%2Fshot.png&expires=1&sig=ab', name: 'shot.png' };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
const serve = (permissions: string[]) => fetchMock.mockImplementation((url: string) => (url === '/api/v1/me' ? ok(me(permissions)) : ok(null)));

describe('file-link viewer', () => {
  it('is disabled and reads 暂无文件访问权限 without the file permission, fetching no link', async () => {
    serve(['as:approval:pageInfo']);
    const fetchLink = vi.fn(() => Promise.resolve(imageLink));
    renderWithProviders(<FileLinkViewer permission={FILE_PERMISSION} fetchLink={fetchLink}>shot.png</FileLinkViewer>);
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/v1/me', expect.anything()));
    const button = await screen.findByRole('button', { name: '暂无文件访问权限' });
    expect(button).toBeDisabled();
    expect(button).toHaveTextContent(/^暂无文件访问权限$/);
    fireEvent.click(button);
    expect(fetchLink).not.toHaveBeenCalled();
  });

  it('opens an image in the image viewer 100 ms after its signed link arrives', async () => {
    serve([FILE_PERMISSION]);
    const fetchLink = vi.fn(() => Promise.resolve(imageLink));
    renderWithProviders(<FileLinkViewer permission={FILE_PERMISSION} fetchLink={fetchLink}>shot.png</FileLinkViewer>);
    const button = await screen.findByRole('button', { name: 'shot.png' });
    vi.useFakeTimers();
    await act(async () => {
      fireEvent.click(button);
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(fetchLink).toHaveBeenCalledTimes(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(99);
    });
    expect(document.querySelector('.ant-image-preview')).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    const preview = document.querySelector('.ant-image-preview img') as HTMLImageElement;
    expect(preview).not.toBeNull();
    expect(preview.getAttribute('src')).toBe(imageLink.url);
  });

  it('opens other files in a new tab, 100 ms after the link arrives; everyone may when no permission is named', async () => {
    serve([]);
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    const pdf = { url: '/api/v1/files/download?key=ent-1%2Fimport%2Fx%2Fpolicy.pdf&expires=1&sig=ab', name: 'policy.pdf' };
    renderWithProviders(<FileLinkViewer fetchLink={() => Promise.resolve(pdf)} />);
    const button = await screen.findByRole('button', { name: '查看文件' });
    vi.useFakeTimers();
    await act(async () => {
      fireEvent.click(button);
      await vi.advanceTimersByTimeAsync(99);
    });
    expect(open).not.toHaveBeenCalled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(open).toHaveBeenCalledWith(pdf.url, '_blank', 'noopener,noreferrer');
    expect(document.querySelector('.ant-image-preview')).toBeNull();
  });
});
