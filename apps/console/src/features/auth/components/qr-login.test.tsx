import { screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import LoginPage from '../routes/login';
import { QR_STATE_REFRESH_MS } from '@/config/constants';
import { qrFrameUrl, weComAppInfoQueryOptions, type WeComAppInfo } from '../api/wecom-app-info';
import { weComReturnAddress } from './qr-login';

const info = (state: string): WeComAppInfo => ({
  appid: 'wwcorp',
  agentid: '1000002',
  redirect_uri: 'http://console.test/login',
  state,
  qrconnect_url: 'http://wecom.test/wwopen/sso/qrConnect',
});
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));

describe('workplace-chat QR sign-in (console spec §4)', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  let states = 0;
  beforeEach(() => {
    fetchMock = vi.fn((url: string) => (url.includes('/wecom/app-info') ? ok(info(`state-${++states}`)) : ok(null)));
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    document.cookie = 'enterpriseToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it('frames the QR page with app, agent, return address and state', () => {
    const url = new URL(qrFrameUrl(info('s1')));
    expect(url.origin + url.pathname).toBe('http://wecom.test/wwopen/sso/qrConnect');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ appid: 'wwcorp', agentid: '1000002', redirect_uri: 'http://console.test/login', state: 's1' });
  });

  it('never caches app info and replaces the frame before its 10-minute state runs out', () => {
    const options = weComAppInfoQueryOptions();
    expect(options.staleTime).toBe(0);
    expect(options.gcTime).toBe(0);
    expect(options.refetchInterval).toBe(QR_STATE_REFRESH_MS);
    expect(QR_STATE_REFRESH_MS).toBeLessThan(10 * 60_000);
    expect(QR_STATE_REFRESH_MS).toBeGreaterThan(8 * 60_000);
  });

  it('follows a return address posted by the QR page only from its origin', () => {
    const i = info('s1');
    const back = 'http://console.test/login?code=C1&state=s1';
    expect(weComReturnAddress(back, 'http://wecom.test', i)).toBe(back);
    expect(weComReturnAddress(back, 'http://evil.test', i)).toBeUndefined();
    expect(weComReturnAddress('http://evil.test/login?code=C1', 'http://wecom.test', i)).toBeUndefined();
    expect(weComReturnAddress({ code: 'C1' }, 'http://wecom.test', i)).toBeUndefined();
    expect(weComReturnAddress(back, 'http://wecom.test', undefined)).toBeUndefined();
  });

  it('asks for fresh app info for every frame, a new state on refresh', async () => {
    renderWithProviders(<LoginPage />, { route: '/login' });
    const frame = await screen.findByTestId('qr-iframe');
    expect(frame.getAttribute('src')).toContain('state=state-1');
    screen.getByTestId('qr-refresh').click();
    await waitFor(() => expect(screen.getByTestId('qr-iframe').getAttribute('src')).toContain('state=state-2'));
    expect(fetchMock.mock.calls.filter(([u]) => String(u).includes('app-info'))).toHaveLength(2);
  });

  it('signs in with loginType 3, the code as authToken and its state, on return', async () => {
    fetchMock.mockImplementation((url: string) =>
      url.includes('/auth/login') ? ok({ token: 'tok-w', expireTime: '', sessionKind: 'enterprise' }) : ok(info('x')),
    );
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/" element={<div>landed</div>} />
      </Routes>,
      { route: '/login?code=CODE1&state=STATE1&appid=wwcorp' },
    );
    expect(await screen.findByText('landed')).toBeInTheDocument();
    const call = fetchMock.mock.calls.find(([u]) => String(u).includes('/auth/login'));
    expect(JSON.parse(call?.[1].body)).toEqual({ loginType: 3, authToken: 'CODE1', state: 'STATE1' });
    expect(fetchMock.mock.calls.filter(([u]) => String(u).includes('/auth/login'))).toHaveLength(1);
  });

  it('clears a refused return and shows a fresh frame', async () => {
    fetchMock.mockImplementation((url: string) =>
      url.includes('/auth/login')
        ? Promise.resolve(new Response(JSON.stringify({ code: 1001, msg: '二维码已失效，请重新扫码', data: null }), { status: 401 }))
        : ok(info('fresh')),
    );
    renderWithProviders(<LoginPage />, { route: '/login?code=OLD&state=USED' });
    expect(await screen.findByTestId('qr-iframe')).toHaveAttribute('src', expect.stringContaining('state=fresh'));
    expect(notify.toastError).toHaveBeenCalledWith('二维码已失效，请重新扫码');
  });
});
