import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import FeedbackPage from './feedback';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const stored = (name: string) => ({ key: `ent-1/feedback/x/${name}`, name, size: 3, contentType: 'image/png', url: `/api/v1/files/download?key=${name}` });
const mine = {
  list: [
    {
      id: 'f1', userName: 'demo', content: '导出希望支持按组织筛选', contact: '138****0001', createTime: '2026-11-20T10:00:00+08:00',
      attachmentKeys: ['ent-1/feedback/x/shot.png'], attachments: [{ key: 'ent-1/feedback/x/shot.png', name: 'shot.png', url: '/api/v1/files/download?key=shot' }],
    },
  ],
  total: 1,
};

let fetchMock: ReturnType<typeof vi.fn>;
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url).split('?')[0] === path && (init?.method ?? 'GET') === method);
const input = () => document.querySelector('input[type="file"]') as HTMLInputElement;

beforeEach(() => {
  fetchMock = vi.fn((url: string, init: RequestInit) => {
    if (url.startsWith('/api/v1/help/feedback') && init.method === 'GET') return ok(mine);
    if (url === '/api/v1/files') return ok(stored(((init.body as FormData).get('file') as File).name));
    if (url === '/api/v1/help/feedback') return ok({ ...mine.list[0], id: 'f2' });
    return Promise.resolve(new Response(JSON.stringify({ code: 4004, msg: 'none', data: null })));
  });
  vi.stubGlobal('fetch', fetchMock);
  for (const fn of ['toastError', 'toastSuccess', 'toastWarning'] as const) vi.spyOn(notify, fn).mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('feedback with attachments', () => {
  it('shows the attachments of my feedback as links', async () => {
    renderWithProviders(<FeedbackPage />);
    const link = await screen.findByRole('link', { name: 'shot.png' });
    expect(link).toHaveAttribute('href', '/api/v1/files/download?key=shot');
  });

  it('uploads attachments with purpose feedback and sends their keys', async () => {
    renderWithProviders(<FeedbackPage />);
    await userEvent.upload(input(), [new File(['png'], 'a.png', { type: 'image/png' }), new File(['png'], 'b.jpg', { type: 'image/jpeg' })]);
    await waitFor(() => expect(calls('POST', '/api/v1/files')).toHaveLength(2));
    expect((calls('POST', '/api/v1/files')[0][1].body as FormData).get('purpose')).toBe('feedback');
    await userEvent.type(screen.getByTestId('feedback-content'), '附件里是截图');
    await waitFor(() => expect(document.querySelectorAll('.ant-upload-list-item-done')).toHaveLength(2));
    await userEvent.click(screen.getByTestId('feedback-submit'));
    await waitFor(() => expect(calls('POST', '/api/v1/help/feedback')).toHaveLength(1));
    expect(JSON.parse(String(calls('POST', '/api/v1/help/feedback')[0][1].body))).toEqual({
      content: '附件里是截图', contact: '', attachmentKeys: ['ent-1/feedback/x/a.png', 'ent-1/feedback/x/b.jpg'],
    });
  });

  it('refuses to submit while an attachment is still uploading (console spec §4)', async () => {
    const base = fetchMock.getMockImplementation() as (url: string, init: RequestInit) => Promise<Response>;
    fetchMock.mockImplementation((url: string, init: RequestInit) => (url === '/api/v1/files' ? new Promise(() => undefined) : base(url, init)));
    renderWithProviders(<FeedbackPage />);
    await userEvent.upload(input(), new File(['png'], 'slow.png', { type: 'image/png' }));
    await waitFor(() => expect(calls('POST', '/api/v1/files')).toHaveLength(1));
    await userEvent.type(screen.getByTestId('feedback-content'), '稍等');
    await userEvent.click(screen.getByTestId('feedback-submit'));
    await waitFor(() => expect(notify.toastWarning).toHaveBeenCalledWith('文件正在上传中，请稍候'));
    expect(calls('POST', '/api/v1/help/feedback')).toHaveLength(0);
  });

  it('refuses a file of another type before sending it', async () => {
    renderWithProviders(<FeedbackPage />);
    await userEvent.upload(input(), new File(['pdf'], 'a.pdf', { type: 'application/pdf' }), { applyAccept: false });
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('上传文件只能是 png、jpeg、jpg、webp、gif 格式!'));
    expect(calls('POST', '/api/v1/files')).toHaveLength(0);
  });

  it('submits without attachments as an empty list', async () => {
    renderWithProviders(<FeedbackPage />);
    await userEvent.type(screen.getByTestId('feedback-content'), '没有附件');
    await userEvent.click(screen.getByTestId('feedback-submit'));
    await waitFor(() => expect(calls('POST', '/api/v1/help/feedback')).toHaveLength(1));
    expect(JSON.parse(String(calls('POST', '/api/v1/help/feedback')[0][1].body)).attachmentKeys).toEqual([]);
  });
});
