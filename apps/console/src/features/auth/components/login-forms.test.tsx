import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { AccountLoginForm } from './account-login-form';
import { PhoneLoginForm } from './phone-login-form';

const answer = (body: unknown, status = 200) => Promise.resolve(new Response(JSON.stringify(body), { status }));

describe('sign-in forms (console spec §4/§5)', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.useRealTimers();
    document.cookie = 'enterpriseToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it('asks for both account and password when submitted empty', async () => {
    renderWithProviders(<AccountLoginForm />);
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));
    expect(await screen.findByText('请输入账号', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    expect(await screen.findByText('请输入密码', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('signs in with loginType 1, trimmed, on Enter, stores the session and goes to /', async () => {
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { token: 'tok-9', expireTime: '', sessionKind: 'enterprise' } }));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<AccountLoginForm />} />
        <Route path="/" element={<div>landed</div>} />
      </Routes>,
      { route: '/login' },
    );
    await userEvent.type(screen.getByPlaceholderText('请输入账号'), ' demo ');
    expect(screen.getByPlaceholderText('请输入账号')).toHaveValue('demo');
    await userEvent.type(screen.getByPlaceholderText('请输入密码'), 'Demo@12345{Enter}');
    expect(await screen.findByText('landed')).toBeInTheDocument();
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toEqual({ loginType: 1, username: 'demo', password: 'Demo@12345' });
    expect(document.cookie).toContain('enterpriseToken=tok-9');
  });

  it('checks the phone format: 请输入手机号, 请输入正确的手机号', async () => {
    renderWithProviders(<PhoneLoginForm />);
    const phone = screen.getByPlaceholderText('请输入手机号');
    await userEvent.type(phone, '12');
    expect(await screen.findByText('请输入正确的手机号')).toBeInTheDocument();
    await userEvent.clear(phone);
    expect(await screen.findByText('请输入手机号', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
  });

  it('enables sending only for a valid phone, then counts down 60 s as 重新发送(n)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { resendAfterSeconds: 60 } }));
    renderWithProviders(<PhoneLoginForm />);
    const send = () => screen.getByRole('button', { name: /^发送$|重新发送/ });
    expect(send()).toBeDisabled();
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '23800138000' } });
    await waitFor(() => expect(send()).toBeDisabled());
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800138000' } });
    await waitFor(() => expect(send()).toBeEnabled());
    fireEvent.click(send());
    await screen.findByRole('button', { name: '重新发送(60)' });
    expect(send()).toBeDisabled();
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toEqual({ phone: '13800138000', purpose: 'login' });
    for (let i = 0; i < 60; i++) await act(async () => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(send()).toHaveTextContent(/^发送$/));
    expect(send()).toBeEnabled();
  });

  it('re-enables sending and shows the error when sending fails', async () => {
    fetchMock.mockReturnValue(answer({ code: 4029, msg: '发送过于频繁', data: null }, 429));
    renderWithProviders(<PhoneLoginForm />);
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800138000' } });
    const send = await screen.findByRole('button', { name: '发送' });
    await waitFor(() => expect(send).toBeEnabled());
    fireEvent.click(send);
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('发送过于频繁'));
    await waitFor(() => expect(screen.getByRole('button', { name: '发送' })).toBeEnabled());
  });

  it('sends once on a double click and never shows the second click refusal (debounce 1000 ms)', async () => {
    fetchMock
      .mockReturnValueOnce(answer({ code: 200, msg: 'ok', data: { resendAfterSeconds: 60 } }))
      .mockReturnValue(answer({ code: 4029, msg: '验证码已发送，请 59 秒后再试', data: null }, 429));
    renderWithProviders(<PhoneLoginForm />);
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800138000' } });
    const send = await screen.findByRole('button', { name: '发送' });
    await waitFor(() => expect(send).toBeEnabled());
    fireEvent.click(send);
    fireEvent.click(send);
    await screen.findByRole('button', { name: '重新发送(60)' });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(notify.toastError).not.toHaveBeenCalled();
  });

  it('counts down the wait a limit gave (4029 with Retry-After)', async () => {
    fetchMock.mockReturnValue(
      Promise.resolve(new Response(JSON.stringify({ code: 4029, msg: '验证码已发送，请 42 秒后再试', data: null }), { status: 429, headers: { 'Retry-After': '42' } })),
    );
    renderWithProviders(<PhoneLoginForm />);
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800138000' } });
    const send = await screen.findByRole('button', { name: '发送' });
    await waitFor(() => expect(send).toBeEnabled());
    fireEvent.click(send);
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('验证码已发送，请 42 秒后再试'));
    expect(await screen.findByRole('button', { name: '重新发送(42)' })).toBeDisabled();
  });

  it('signs in with loginType 2, phone and code', async () => {
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { token: 'tok-2', expireTime: '', sessionKind: 'enterprise' } }));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<PhoneLoginForm />} />
        <Route path="/" element={<div>landed</div>} />
      </Routes>,
      { route: '/login' },
    );
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800000002' } });
    await userEvent.type(screen.getByPlaceholderText('请输入验证码'), '123456{Enter}');
    expect(await screen.findByText('landed')).toBeInTheDocument();
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toEqual({ loginType: 2, phone: '13800000002', verifyCode: '123456' });
    expect(localStorage.getItem('loginPhone')).toBe('13800000002');
  });

  it('sends a personal session on to /selectNet, keeping a detail-link parameter', async () => {
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { token: 'tok-p', expireTime: '', sessionKind: 'personal' } }));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<AccountLoginForm />} />
        <Route path="/selectNet" element={<div>choose</div>} />
      </Routes>,
      { route: '/login?tDeliveryCode=T9' },
    );
    await userEvent.type(screen.getByPlaceholderText('请输入账号'), 'demo_multi');
    await userEvent.type(screen.getByPlaceholderText('请输入密码'), 'Demo@12345{Enter}');
    expect(await screen.findByText('choose')).toBeInTheDocument();
    expect(document.cookie).toContain('personalToken=tok-p');
    expect(document.cookie).not.toContain('enterpriseToken=');
    document.cookie = 'personalToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it('opens a stored expired-auth path in a new window after sign-in', async () => {
    localStorage.setItem('expireAuthPath', '/systemSetting/loginLog');
    const open = vi.spyOn(window, 'open').mockReturnValue({} as Window);
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { token: 'tok-9', expireTime: '', sessionKind: 'enterprise' } }));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<AccountLoginForm />} />
        <Route path="/" element={<div>landed</div>} />
      </Routes>,
      { route: '/login' },
    );
    await userEvent.type(screen.getByPlaceholderText('请输入账号'), 'demo');
    await userEvent.type(screen.getByPlaceholderText('请输入密码'), 'Demo@12345{Enter}');
    expect(await screen.findByText('landed')).toBeInTheDocument();
    expect(open).toHaveBeenCalledWith('/systemSetting/loginLog', '_blank');
    expect(localStorage.getItem('expireAuthPath')).toBeNull();
  });

  it('opens the expired-auth path in place when the new window is blocked', async () => {
    localStorage.setItem('expireAuthPath', '/systemSetting/loginLog');
    vi.spyOn(window, 'open').mockReturnValue(null);
    fetchMock.mockReturnValue(answer({ code: 200, msg: 'ok', data: { token: 'tok-9', expireTime: '', sessionKind: 'enterprise' } }));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<AccountLoginForm />} />
        <Route path="/" element={<div>landed</div>} />
        <Route path="/systemSetting/loginLog" element={<div>login log</div>} />
      </Routes>,
      { route: '/login' },
    );
    await userEvent.type(screen.getByPlaceholderText('请输入账号'), 'demo');
    await userEvent.type(screen.getByPlaceholderText('请输入密码'), 'Demo@12345{Enter}');
    expect(await screen.findByText('login log')).toBeInTheDocument();
  });

  it('asks for the code when Enter submits without one', async () => {
    renderWithProviders(<PhoneLoginForm />);
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '13800138000' } });
    await userEvent.type(screen.getByPlaceholderText('请输入验证码'), '{Enter}');
    expect(await screen.findByText('请输入验证码', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
  });
});
