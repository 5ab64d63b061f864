import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { ROLES_MISSING } from '@/lib/auth';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { pageTitle } from '@/components/use-page-title';
import { endsSession, loginRedirect, PublicOnly, RequireAnySession, RequireSession, SessionBootstrap } from './guards';

describe('guards (console spec §2/§4)', () => {
  afterEach(() => {
    document.cookie = 'enterpriseToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    document.cookie = 'personalToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    localStorage.removeItem('expireAuthPath');
  });

  it('keeps tDeliveryCode or fixedLossCode on the way to /login', () => {
    expect(loginRedirect('?tDeliveryCode=T1&x=1')).toBe('/login?tDeliveryCode=T1');
    expect(loginRedirect('?fixedLossCode=F2')).toBe('/login?fixedLossCode=F2');
    expect(loginRedirect('')).toBe('/login');
  });

  it('sends a visitor without a session to /login', () => {
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/dashboard" element={<div>secret</div>} />
        </Route>
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>,
      { route: '/dashboard' },
    );
    expect(screen.getByText('sign in')).toBeInTheDocument();
  });

  it('remembers the page asked for, to reopen after sign-in (expireAuthPath)', () => {
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/systemSetting/loginLog" element={<div>secret</div>} />
        </Route>
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>,
      { route: '/systemSetting/loginLog?principal=demo' },
    );
    expect(screen.getByText('sign in')).toBeInTheDocument();
    expect(localStorage.getItem('expireAuthPath')).toBe('/systemSetting/loginLog?principal=demo');
  });

  it('sends a personal session to /selectNet to choose its enterprise', () => {
    document.cookie = 'personalToken=p1; path=/';
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/dashboard" element={<div>secret</div>} />
        </Route>
        <Route path="/selectNet" element={<div>choose</div>} />
      </Routes>,
      { route: '/dashboard' },
    );
    expect(screen.getByText('choose')).toBeInTheDocument();
  });

  it('lets /selectNet through only with a session', () => {
    const tree = (
      <Routes>
        <Route path="/selectNet" element={<RequireAnySession><div>choose</div></RequireAnySession>} />
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>
    );
    renderWithProviders(tree, { route: '/selectNet' });
    expect(screen.getByText('sign in')).toBeInTheDocument();
  });

  it('sends /login with a session to /dashboard', () => {
    document.cookie = 'enterpriseToken=abc; path=/';
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<PublicOnly><div>sign in</div></PublicOnly>} />
        <Route path="/dashboard" element={<div>workbench</div>} />
      </Routes>,
      { route: '/login' },
    );
    expect(screen.getByText('workbench')).toBeInTheDocument();
  });

  it('titles pages from route meta, defaulting to 车管家', () => {
    expect(pageTitle(undefined)).toBe('车管家');
    expect(pageTitle('组织管理')).toBe('组织管理 - 车管家');
  });

  it('ends the session only for 1001/1016 or user info without roles', () => {
    expect(endsSession(new ApiError(1001, 'x'))).toBe(true);
    expect(endsSession(new ApiError(1016, 'x'))).toBe(true);
    expect(endsSession(new Error(ROLES_MISSING))).toBe(true);
    expect(endsSession(new ApiError(5000, 'x'))).toBe(false);
    expect(endsSession(new ApiError(5003, 'x'))).toBe(false);
    expect(endsSession(new ApiError(-1, 'x'))).toBe(false);
  });

  it('shows spec §5’s error when /me answers an empty roles array, on the way to /login', async () => {
    document.cookie = 'enterpriseToken=abc; path=/';
    const error = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    const me = { id: '1', name: '演示', roles: [], permissions: [], flags: {} };
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data: me })))));
    try {
      renderWithProviders(<SessionBootstrap><div>shell</div></SessionBootstrap>);
      await waitFor(() => expect(error).toHaveBeenCalledWith('getInfo: roles must be a non-null array !'));
      expect(error).toHaveBeenCalledTimes(1);
      expect(screen.queryByText('shell')).not.toBeInTheDocument();
      expect(screen.queryByRole('button', { name: /重\s*试/ })).not.toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
  });

  it('keeps the session when /me fails with a 5xx or a network blip, and retries', async () => {
    document.cookie = 'enterpriseToken=abc; path=/';
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    const me = { id: '1', name: '演示', roles: ['admin'], permissions: [], flags: {} };
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(new Response(JSON.stringify({ code: 5003, msg: '服务暂不可用', data: null }), { status: 503 }))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValue(new Response(JSON.stringify({ code: 200, msg: 'ok', data: me })));
    vi.stubGlobal('fetch', fetchMock);
    try {
      renderWithProviders(<SessionBootstrap><div>shell</div></SessionBootstrap>);
      fireEvent.click(await screen.findByRole('button', { name: /重\s*试/ }));
      fireEvent.click(await screen.findByRole('button', { name: /重\s*试/ }));
      expect(await screen.findByText('shell')).toBeInTheDocument();
      expect(document.cookie).toContain('enterpriseToken=abc');
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
  });
});
