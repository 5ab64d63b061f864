import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from './notify';
import { attachmentKeysOf, fileItemOf, uploaderFor, uploadFile } from './files';

const stored = { key: 'ent-1/feedback/abc/shot.png', name: 'shot.png', size: 3, contentType: 'image/png', url: '/api/v1/files/download?key=k&sig=s' };
let fetchMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  fetchMock = vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: '上传成功', data: stored }))));
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('file uploads', () => {
  it('posts the file and its purpose as multipart to /api/v1/files, without a JSON content type', async () => {
    const file = new File(['png'], 'shot.png', { type: 'image/png' });
    expect(await uploadFile(file, 'feedback')).toEqual(stored);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/files');
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>)['Content-Type']).toBeUndefined();
    const form = init.body as FormData;
    expect(form.get('purpose')).toBe('feedback');
    expect((form.get('file') as File).name).toBe('shot.png');
  });

  it('fails with the server message and no toast of its own (the control shows it)', async () => {
    fetchMock.mockImplementation(() => Promise.resolve(new Response(JSON.stringify({ code: 4000, msg: '上传文件必须小于5M!', data: { fields: [] } }))));
    await expect(uploaderFor('feedback')(new File(['x'], 'a.png'), vi.fn())).rejects.toThrow('上传文件必须小于5M!');
    expect(notify.toastError).not.toHaveBeenCalled();
  });

  it('gives the control the link to show and keeps the key to save', async () => {
    expect(fileItemOf(stored)).toEqual({ name: 'shot.png', url: stored.url, saveUrl: stored.key });
    const progress = vi.fn();
    expect(await uploaderFor('feedback')(new File(['png'], 'shot.png'), progress)).toEqual({ name: 'shot.png', url: stored.url, saveUrl: stored.key });
    expect(progress).toHaveBeenCalledWith(100);
  });

  it('sends the keys of the uploaded files, in order', () => {
    expect(attachmentKeysOf(undefined)).toEqual([]);
    expect(attachmentKeysOf([{ name: 'a', url: 'u1', saveUrl: 'k1' }, { name: 'b', url: 'u2' }, { name: 'c', url: 'u3', saveUrl: 'k3' }])).toEqual(['k1', 'k3']);
  });
});
