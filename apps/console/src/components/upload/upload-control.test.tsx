import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { uploaderFor } from '@/lib/files';
import { UploadControl } from './upload-control';

const file = (name: string, size = 10) => new File(['x'.repeat(size)], name, { type: 'application/octet-stream' });
const input = () => document.querySelector('input[type="file"]') as HTMLInputElement;

describe('upload control (console spec §4/§5)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('uploads an accepted file and reports it', async () => {
    vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
    const onChange = vi.fn();
    const upload = vi.fn(() => Promise.resolve({ name: 'a.xlsx', url: 'https://files/a.xlsx' }));
    renderWithProviders(<UploadControl upload={upload} onChange={onChange} types={['xlsx']} />);
    await userEvent.upload(input(), file('a.xlsx'));
    await waitFor(() => expect(onChange).toHaveBeenLastCalledWith([{ name: 'a.xlsx', url: 'https://files/a.xlsx', saveUrl: undefined }]));
  });

  it('refuses a wrong type with 上传文件只能是 … 格式!', async () => {
    const toast = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    const upload = vi.fn();
    renderWithProviders(<UploadControl upload={upload} types={['xls', 'xlsx']} />);
    await userEvent.upload(input(), file('a.pdf'), { applyAccept: false });
    expect(toast).toHaveBeenCalledWith('上传文件只能是 xls、xlsx 格式!');
    expect(upload).not.toHaveBeenCalled();
  });

  it('refuses the same file twice', async () => {
    vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
    const warn = vi.spyOn(notify, 'toastWarning').mockImplementation(() => undefined);
    const upload = vi.fn(() => Promise.resolve({ name: 'a.xlsx', url: 'u' }));
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderWithProviders(<UploadControl upload={upload} />);
    await user.upload(input(), file('a.xlsx'));
    await waitFor(() => expect(upload).toHaveBeenCalledTimes(1));
    await user.upload(input(), file('a.xlsx'));
    expect(warn).toHaveBeenCalledWith('请勿重复上传文件，请重新选择');
    expect(upload).toHaveBeenCalledTimes(1);
  });

  describe('failure texts with the real api client (console spec §8)', () => {
    afterEach(() => vi.unstubAllGlobals());
    const failWith = async (fetchImpl: () => Promise<Response>) => {
      const toast = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
      vi.stubGlobal('fetch', vi.fn(fetchImpl));
      renderWithProviders(<UploadControl upload={uploaderFor('feedback')} />);
      await userEvent.upload(input(), file('b.png'));
      await waitFor(() => expect(screen.queryByText('b.png')).toBeNull());
      await waitFor(() => expect(toast).toHaveBeenCalled(), { timeout: 2000 });
      expect(toast).toHaveBeenCalledTimes(1);
      return toast.mock.calls[0][0];
    };
    const envelope = (body: object, status: number) => Promise.resolve(new Response(JSON.stringify(body), { status }));

    it('says 上传失败，请重新上传 when the network fails', async () => {
      expect(await failWith(() => Promise.reject(new TypeError('Failed to fetch')))).toBe('上传失败，请重新上传');
    });

    it('says 上传失败，请重新上传 when the server fails (5xx)', async () => {
      expect(await failWith(() => envelope({ code: 5003, msg: '服务暂不可用', data: null }, 503))).toBe('上传失败，请重新上传');
    });

    it("shows the server's msg for a business refusal", async () => {
      expect(await failWith(() => envelope({ code: 4000, msg: '文件内容不是图片，请上传 png、jpeg、jpg、webp、gif 图片', data: { fields: [] } }, 400))).toBe(
        '文件内容不是图片，请上传 png、jpeg、jpg、webp、gif 图片',
      );
    });

    it('says 上传失败 for a business refusal without a msg', async () => {
      expect(await failWith(() => envelope({ code: 4009, msg: '', data: null }, 409))).toBe('上传失败');
    });
  });

  it('hides the picture-card add button at the limit and in detail mode', () => {
    const value = [{ name: 'p.png', url: 'https://files/p.png' }];
    const { unmount } = renderWithProviders(<UploadControl upload={vi.fn()} pictureCard limit={1} value={value} />);
    expect(screen.queryByText('选择文件')).toBeNull();
    unmount();
    renderWithProviders(<UploadControl upload={vi.fn()} pictureCard limit={3} value={value} />);
    expect(screen.getByText('选择文件')).toBeInTheDocument();
  });

  it('warns when more files are chosen than the limit allows', async () => {
    const warn = vi.spyOn(notify, 'toastWarning').mockImplementation(() => undefined);
    const upload = vi.fn();
    renderWithProviders(<UploadControl upload={upload} limit={1} multiple />);
    await userEvent.upload(input(), [file('a.xlsx'), file('b.xlsx')]);
    expect(upload).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith('当前限制选择 1 个文件，本次选择了 2 个文件，共选择了 2 个文件');
  });
});
