import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import { api, ApiError, postForm } from '@/lib/api-client';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { ImportDialog, IMPORT_DIALOG_WIDTH } from './import-dialog';
import { importErrorTable } from './import-rules';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });
const xlsx = (name = 'cars.xlsx', size = 100, lastModified = 1) => new File(['x'.repeat(size)], name, { lastModified });
const fileInput = () => document.querySelector('input[type="file"]') as HTMLInputElement;
const table = { errorHeader: ['行号', '列名', '错误原因'], errorList: [{ row: 3, column: '车架号', reason: '车架号须为17位' }, { row: 5, column: '', reason: '与第 4 行重复' }] };
const tableError = () => Object.assign(new ApiError(4000, '导入数据有误'), { data: table });

let toasts: { error: ReturnType<typeof vi.spyOn>; warning: ReturnType<typeof vi.spyOn>; success: ReturnType<typeof vi.spyOn> };
beforeEach(() => {
  vi.stubGlobal('fetch', vi.fn((url: string) => (url === '/api/v1/me' ? ok(me(['as:sys:car:import'])) : ok(null))));
  toasts = {
    error: vi.spyOn(notify, 'toastError').mockImplementation(() => undefined),
    warning: vi.spyOn(notify, 'toastWarning').mockImplementation(() => undefined),
    success: vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined),
  };
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function mount(props: Partial<Parameters<typeof ImportDialog>[0]> = {}) {
  const handlers = { importFile: vi.fn(), onClose: vi.fn(), onImported: vi.fn(), downloadTemplate: vi.fn(() => Promise.resolve()), ...props };
  renderWithProviders(<ImportDialog open title="导入车辆" {...handlers} />);
  return handlers;
}
const confirm = () => userEvent.click(screen.getByRole('button', { name: /导\s*入/ }));

describe('bulk-import dialog (console spec §2/§4/§5)', () => {
  it('is 650 px wide', () => {
    mount();
    expect(IMPORT_DIALOG_WIDTH).toBe(650);
    expect((document.querySelector('.ant-modal') as HTMLElement).style.width).toBe('650px');
  });

  it('asks for a file first', async () => {
    const { importFile } = mount();
    await confirm();
    expect(toasts.warning).toHaveBeenCalledWith('请先选择上传文件');
    expect(importFile).not.toHaveBeenCalled();
  });

  it('takes only xls and xlsx files under 10 MB', async () => {
    const { importFile } = mount();
    await userEvent.upload(fileInput(), new File(['x'], 'cars.csv'), { applyAccept: false });
    expect(toasts.error).toHaveBeenCalledWith('上传文件只能是 xls、xlsx 格式!');
    const big = xlsx('big.xlsx');
    Object.defineProperty(big, 'size', { value: 10 * 1024 * 1024 });
    await userEvent.upload(fileInput(), big);
    expect(toasts.error).toHaveBeenCalledWith('上传文件必须小于10M!');
    await confirm();
    expect(importFile).not.toHaveBeenCalled();
  });

  it('imports, says how many rows, refreshes the list and closes', async () => {
    const { importFile, onImported, onClose } = mount({ importFile: vi.fn(() => Promise.resolve({ imported: 12 })) });
    await userEvent.upload(fileInput(), xlsx());
    await confirm();
    await waitFor(() => expect(onImported).toHaveBeenCalledTimes(1));
    expect(importFile).toHaveBeenCalledWith(expect.objectContaining({ name: 'cars.xlsx' }), expect.objectContaining({ silent: true }));
    expect(toasts.success).toHaveBeenCalledWith('导入成功，共 12 条');
    expect(onClose).toHaveBeenCalled();
  });

  it('shows the error table of a 4000 and refuses the same file again', async () => {
    const importFile = vi.fn(() => Promise.reject(tableError()));
    const { onImported } = mount({ importFile });
    await userEvent.upload(fileInput(), xlsx());
    await confirm();
    const errors = await screen.findByTestId('import-errors');
    expect(errors).toHaveTextContent('导入失败，共 2 处错误');
    expect(errors).toHaveTextContent('车架号须为17位');
    expect(errors).toHaveTextContent('与第 4 行重复');
    expect(screen.getByRole('columnheader', { name: '错误原因' })).toBeInTheDocument();
    expect(onImported).not.toHaveBeenCalled();

    await new Promise((r) => setTimeout(r, 1600)); // past the dialog's confirm debounce
    await confirm();
    expect(toasts.warning).toHaveBeenCalledWith('请勿重复上传文件，请重新选择');
    expect(importFile).toHaveBeenCalledTimes(1);

    // A corrected file (changed since) goes.
    await userEvent.upload(fileInput(), xlsx('cars.xlsx', 100, 2));
    await new Promise((r) => setTimeout(r, 1600));
    await confirm();
    await waitFor(() => expect(importFile).toHaveBeenCalledTimes(2));
  }, 15_000);

  it('cannot be closed while the file uploads', async () => {
    let finish: (v: { imported: number }) => void = () => undefined;
    const { onClose } = mount({ importFile: vi.fn(() => new Promise<{ imported: number }>((r) => (finish = r))) });
    await userEvent.upload(fileInput(), xlsx());
    await confirm();
    await screen.findByText('上传中...');
    await userEvent.click(screen.getByRole('button', { name: /取\s*消/ }));
    expect(toasts.warning).toHaveBeenCalledWith('文件正在上传中，请稍候');
    expect(onClose).not.toHaveBeenCalled();
    finish({ imported: 1 });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('says 上传失败，请重新上传 on a transport failure and lets the same file go again', async () => {
    const importFile = vi.fn(() => Promise.reject(new ApiError(-1, '服务异常，请更换查询条件或稍后重试')));
    mount({ importFile });
    await userEvent.upload(fileInput(), xlsx());
    await confirm();
    await waitFor(() => expect(toasts.error).toHaveBeenCalledWith('上传失败，请重新上传'));
    expect(toasts.error).not.toHaveBeenCalledWith('服务异常，请更换查询条件或稍后重试');
    expect(screen.queryByTestId('import-errors')).not.toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 1600));
    await confirm();
    await waitFor(() => expect(importFile).toHaveBeenCalledTimes(2));
  });

  it.each([
    ['a 5xx through the request client', () => Promise.resolve(new Response(JSON.stringify({ code: 5003, msg: 'unavailable', data: null }), { status: 503 })), '上传失败，请重新上传'],
    ['no answer through the request client', () => Promise.reject(new TypeError('Failed to fetch')), '上传失败，请重新上传'],
    ['a refusal without msg', () => Promise.resolve(new Response(JSON.stringify({ code: 4009, data: null }), { status: 409 })), '上传失败'],
    ['a refusal with msg', () => Promise.resolve(new Response(JSON.stringify({ code: 4009, msg: '文件已在导入中', data: null }), { status: 409 })), '文件已在导入中'],
  ])('says what spec §8 gives for %s', async (_, answer, text) => {
    mount({ importFile: (file, options) => postForm('/api/v1/vehicles/import', { file }, options) });
    vi.stubGlobal('fetch', vi.fn((url: string) => (url === '/api/v1/me' ? ok(me(['as:sys:car'])) : answer())));
    await userEvent.upload(fileInput(), xlsx());
    await confirm();
    await waitFor(() => expect(toasts.error).toHaveBeenCalled());
    expect(toasts.error).toHaveBeenCalledWith(text);
  });

  it('downloads the template with its permission; without it the button is disabled and says 暂无模板下载权限', async () => {
    const { downloadTemplate } = mount({ templatePermission: 'as:sys:car:import' });
    const button = await screen.findByRole('button', { name: /下载模板/ }, { timeout: 5000 });
    await userEvent.click(button);
    expect(downloadTemplate).toHaveBeenCalledTimes(1);
  });

  it('disables the template button without the permission', async () => {
    mount({ templatePermission: 'as:sys:driver:import' });
    await waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/v1/me', expect.anything()));
    await new Promise((r) => setTimeout(r, 100));
    const button = await screen.findByTestId('import-template');
    expect(button).toBeDisabled();
    expect(button).toHaveTextContent('暂无模板下载权限');
  });
});

describe('import error answer', () => {
  it('reads {errorHeader, errorList} from a 4000 through the request client', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 4000, msg: '导入数据有误', data: table }), { status: 400 }))));
    const err = await api.get('/api/v1/me', { silent: true }).catch((e: unknown) => e);
    expect(importErrorTable(err)).toEqual(table);
  });

  it('is no table for other failures or a 4000 without rows', () => {
    expect(importErrorTable(new ApiError(4009, 'x'))).toBeUndefined();
    expect(importErrorTable(Object.assign(new ApiError(4000, 'x'), { data: { fields: [] } }))).toBeUndefined();
    expect(importErrorTable(new Error('x'))).toBeUndefined();
  });
});
