import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { getCookie, setCookie } from '@/lib/cookies';
import { renderWithProviders } from '@/testing/render';
import { ChangePasswordDialog } from './change-password-dialog';
import { useChangePassword } from './change-password';

const answer = (body: unknown, status = 200) => Promise.resolve(new Response(JSON.stringify(body), { status }));

function Harness({ onDone }: { onDone: () => void }) {
  const submit = useChangePassword(onDone);
  return <ChangePasswordDialog open onClose={onDone} onSubmit={submit} />;
}

const field = (label: string) => screen.getByLabelText(label);

describe('change password (console spec §5)', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    document.cookie.split('; ').forEach((c) => (document.cookie = `${c.split('=')[0]}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`));
  });

  it('asks for all three fields on submit, one message each', async () => {
    renderWithProviders(<Harness onDone={() => undefined} />);
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await screen.findByText('请输入旧密码')).toBeInTheDocument();
    expect(screen.getByText('请输入新密码')).toBeInTheDocument();
    expect(screen.getByText('请再次输入新密码')).toBeInTheDocument();
    expect(screen.queryByText('请再次输入密码')).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('checks 8 to 20 characters and the match on blur', async () => {
    renderWithProviders(<Harness onDone={() => undefined} />);
    fireEvent.change(field('新密码'), { target: { value: 'short' } });
    fireEvent.blur(field('新密码'));
    expect(await screen.findByText('长度在 8 到 20 个字符')).toBeInTheDocument();
    fireEvent.change(field('新密码'), { target: { value: 'Newpass@2026' } });
    fireEvent.change(field('确认新密码'), { target: { value: 'Newpass@2027' } });
    fireEvent.blur(field('确认新密码'));
    expect(await screen.findByText('两次输入密码不一致!')).toBeInTheDocument();
  });

  it('posts old, new and confirmation, says 修改密码成功 and keeps the current session', async () => {
    setCookie('enterpriseToken', 'tok-current', 30);
    setCookie('personalToken', 'tok-personal', 30);
    fetchMock.mockReturnValue(answer({ code: 200, msg: '修改密码成功', data: null }));
    const onDone = vi.fn();
    renderWithProviders(<Harness onDone={onDone} />);
    fireEvent.change(field('旧密码'), { target: { value: 'Demo@12345' } });
    fireEvent.change(field('新密码'), { target: { value: ' Newpass@2026 ' } });
    fireEvent.change(field('确认新密码'), { target: { value: 'Newpass@2026' } });
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/api/v1/auth/password');
    expect(init.headers.token).toBe('tok-current');
    expect(JSON.parse(init.body)).toEqual({ oldPassword: 'Demo@12345', newPassword: 'Newpass@2026', confirmNewPaw: 'Newpass@2026' });
    expect(notify.toastSuccess).toHaveBeenCalledWith('修改密码成功');
    expect(getCookie('enterpriseToken')).toBe('tok-current');
    expect(getCookie('personalToken')).toBeUndefined();
  });

  it('stays open and shows the server message for a wrong old password', async () => {
    fetchMock.mockReturnValue(answer({ code: 4000, msg: '旧密码不正确', data: null }, 400));
    const onDone = vi.fn();
    renderWithProviders(<Harness onDone={onDone} />);
    fireEvent.change(field('旧密码'), { target: { value: 'Wrong@12345' } });
    fireEvent.change(field('新密码'), { target: { value: 'Newpass@2026' } });
    fireEvent.change(field('确认新密码'), { target: { value: 'Newpass@2026' } });
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('旧密码不正确'));
    expect(onDone).not.toHaveBeenCalled();
    expect(screen.getByText('修改密码', { selector: '.ant-modal-title' })).toBeInTheDocument();
  });
});
