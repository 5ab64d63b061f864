import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import { getCookie, setCookie } from '@/lib/cookies';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import SelectNetPage from './select-net';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const A = { enterpriseId: 'ent-a', enterpriseName: '演示物流有限公司', current: false };
const B = { enterpriseId: 'ent-b', enterpriseName: '示例冷链科技有限公司', current: false };

function renderPage(route = '/selectNet') {
  return renderWithProviders(
    <Routes>
      <Route path="/selectNet" element={<SelectNetPage />} />
      <Route path="/" element={<div>landed</div>} />
    </Routes>,
    { route },
  );
}

describe('/selectNet (console spec §4)', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    setCookie('personalToken', 'tok-personal', 30);
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    document.cookie.split('; ').forEach((c) => (document.cookie = `${c.split('=')[0]}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`));
  });

  it('lists the enterprises by name and enters the chosen one with its own session', async () => {
    fetchMock.mockImplementation((url: string) =>
      url.includes('select-enterprise') ? ok({ token: 'tok-b', expireTime: '', sessionKind: 'enterprise' }) : ok([A, B]),
    );
    renderPage('/selectNet?tDeliveryCode=T1');
    await userEvent.click(await screen.findByText('示例冷链科技有限公司'));
    expect(await screen.findByText('landed')).toBeInTheDocument();
    expect(screen.queryByText('演示物流有限公司')).not.toBeInTheDocument();
    const [url, init] = fetchMock.mock.calls[1];
    expect(url).toBe('/api/v1/auth/select-enterprise');
    expect(init.headers.token).toBe('tok-personal');
    expect(JSON.parse(init.body)).toEqual({ enterpriseId: 'ent-b' });
    expect(getCookie('enterpriseToken')).toBe('tok-b');
  });

  it('selects a single enterprise by itself', async () => {
    fetchMock.mockImplementation((url: string) =>
      url.includes('select-enterprise') ? ok({ token: 'tok-a', expireTime: '', sessionKind: 'enterprise' }) : ok([A]),
    );
    renderPage();
    expect(await screen.findByText('landed')).toBeInTheDocument();
    expect(JSON.parse(fetchMock.mock.calls[1][1].body)).toEqual({ enterpriseId: 'ent-a' });
  });

  it('lets the person choose again when the choice is refused', async () => {
    fetchMock.mockImplementation((url: string) =>
      url.includes('select-enterprise')
        ? Promise.resolve(new Response(JSON.stringify({ code: 4004, msg: '企业不存在', data: null }), { status: 404 }))
        : ok([A, B]),
    );
    renderPage();
    await userEvent.click(await screen.findByText('演示物流有限公司'));
    await waitFor(() => expect(notify.toastError).toHaveBeenCalledWith('企业不存在'));
    await waitFor(() => expect(screen.getAllByTestId('enterprise-option')[0]).toBeEnabled());
    expect(getCookie('enterpriseToken')).toBeUndefined();
  });

  it('says so when the account belongs to no enterprise', async () => {
    fetchMock.mockImplementation(() => ok([]));
    renderPage();
    expect(await screen.findByText('您的账号尚未加入任何企业，请联系企业管理员')).toBeInTheDocument();
  });
});
