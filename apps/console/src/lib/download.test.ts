import { afterEach, vi } from 'vitest';
import { downloadFrom, fileNameOf } from './download';
import * as notify from './notify';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('file downloads', () => {
  it('reads the file name, UTF-8 names first', () => {
    expect(fileNameOf(`attachment; filename="a.xlsx"; filename*=UTF-8''%E8%BD%A6%E8%BE%86.xlsx`, 'x')).toBe('车辆.xlsx');
    expect(fileNameOf('attachment; filename="template.xlsx"', 'x')).toBe('template.xlsx');
    expect(fileNameOf(null, '模板.xlsx')).toBe('模板.xlsx');
  });

  it('saves a file answer under its name', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(new Blob(['xlsx']), { headers: { 'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'Content-Disposition': 'attachment; filename="t.xlsx"' } }))));
    URL.createObjectURL = vi.fn(() => 'blob:1');
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    await downloadFrom('/api/v1/x/import-template', 'fallback.xlsx');
    expect(click).toHaveBeenCalledTimes(1);
    const anchor = click.mock.contexts[0] as HTMLAnchorElement;
    expect(anchor.download).toBe('t.xlsx');
  });

  it('fails with the server’s text for a refused envelope', async () => {
    const toast = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 9999, msg: 'no', data: null }), { status: 403, headers: { 'Content-Type': 'application/json' } }))));
    await expect(downloadFrom('/api/v1/x/import-template', 'f.xlsx')).rejects.toMatchObject({ code: 9999 });
    expect(toast).toHaveBeenCalledWith('您没有访问权限，请联系系统管理员添加');
  });
});
