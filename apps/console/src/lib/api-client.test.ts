import { afterEach, beforeEach, vi } from 'vitest';
import { api, ApiError, Code, parseRetryAfter, setSessionExpiredHandler } from './api-client';
import * as notify from './notify';
import { setCookie } from './cookies';

function answer(status: number, body: unknown) {
  return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }));
}

describe('request client (console spec §8, docs/ARCHITECTURE.md §3)', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  let toast: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    toast = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
    toast.mockRestore();
    document.cookie.split('; ').forEach((c) => (document.cookie = `${c.split('=')[0]}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`));
  });

  it('sends the token and platformId headers on every call', async () => {
    setCookie('enterpriseToken', 'tok-1', 30);
    fetchMock.mockReturnValue(answer(200, { code: 200, msg: 'ok', data: { id: '1' } }));
    await api.get('/api/v1/me');
    const [, init] = fetchMock.mock.calls[0];
    expect(init.headers.token).toBe('tok-1');
    expect(init.headers.platformId).toBe('1');
  });

  it('trims every string of the body, nested too', async () => {
    fetchMock.mockReturnValue(answer(200, { code: 200, msg: 'ok', data: { token: 't', expireTime: '', sessionKind: 'enterprise' } }));
    await api.post('/api/v1/auth/login', { body: { loginType: 1, username: '  demo ', password: ' pw\t' } });
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toEqual({ loginType: 1, username: 'demo', password: 'pw' });
  });

  it('unwraps data on code 200', async () => {
    fetchMock.mockReturnValue(answer(200, { code: 200, msg: 'ok', data: { id: '7' } }));
    await expect(api.get('/api/v1/me')).resolves.toEqual({ id: '7' });
  });

  it('toasts msg as plain text for other codes and rejects', async () => {
    fetchMock.mockReturnValue(answer(409, { code: 4009, msg: '<b>状态已变化</b>', data: null }));
    await expect(api.get('/api/v1/me')).rejects.toMatchObject({ code: Code.Conflict });
    expect(toast).toHaveBeenCalledWith('<b>状态已变化</b>');
  });

  it('keeps field errors of a validation failure', async () => {
    fetchMock.mockReturnValue(answer(400, { code: 4000, msg: '请输入账号', data: { fields: [{ field: 'username', message: '请输入账号' }] } }));
    const err = (await api.post('/api/v1/auth/login', { body: { loginType: 1 } }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.fields).toEqual([{ field: 'username', message: '请输入账号' }]);
  });

  it('keeps the field a 4009 names as taken', async () => {
    fetchMock.mockReturnValue(answer(409, { code: 4009, msg: '账号已存在', data: { fields: [{ field: 'userName', message: '账号已存在' }] } }));
    const err = (await api.post('/api/v1/system/users', { body: {} as never }).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe(Code.Conflict);
    expect(err.fields).toEqual([{ field: 'userName', message: '账号已存在' }]);
  });

  it('shows the no-permission message for 9999', async () => {
    fetchMock.mockReturnValue(answer(403, { code: 9999, msg: 'forbidden', data: null }));
    await expect(api.get('/api/v1/me')).rejects.toBeInstanceOf(ApiError);
    expect(toast).toHaveBeenCalledWith('您没有访问权限，请联系系统管理员添加');
  });

  it('shows the service error for 5000/5003 and network failures', async () => {
    fetchMock.mockReturnValueOnce(answer(503, { code: 5003, msg: 'upstream down', data: null }));
    await expect(api.get('/api/v1/me')).rejects.toMatchObject({ code: 5003 });
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(api.get('/api/v1/me')).rejects.toMatchObject({ code: Code.Network });
    expect(toast).toHaveBeenNthCalledWith(1, '服务异常，请更换查询条件或稍后重试');
    expect(toast).toHaveBeenNthCalledWith(2, '服务异常，请更换查询条件或稍后重试');
  });

  it('logs out 1.5 s after 1001 or 1016 and clears the session', async () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    setSessionExpiredHandler(expired);
    setCookie('enterpriseToken', 'gone', 30);
    fetchMock.mockReturnValue(answer(401, { code: 1016, msg: '会话已结束', data: null }));
    await expect(api.get('/api/v1/me')).rejects.toMatchObject({ code: 1016 });
    expect(toast).toHaveBeenCalledWith('会话已结束');
    vi.advanceTimersByTime(1_499);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(document.cookie).not.toContain('enterpriseToken=gone');
  });

  it('gives up after 60 s', async () => {
    vi.useFakeTimers();
    fetchMock.mockImplementation((_: string, init: RequestInit) => new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))));
    const call = api.get('/api/v1/me').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(toast).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(await call).toMatchObject({ code: Code.Network });
    expect(toast).toHaveBeenCalledWith('服务异常，请更换查询条件或稍后重试');
  });

  it('stays quiet for silent calls', async () => {
    fetchMock.mockReturnValue(answer(404, { code: 4004, msg: 'not found', data: null }));
    await expect(api.get('/api/v1/auth/wecom/app-info', { silent: true })).rejects.toMatchObject({ code: 4004 });
    expect(toast).not.toHaveBeenCalled();
  });

  it('keeps the wait of a 4029 answer from Retry-After', async () => {
    fetchMock.mockReturnValue(
      Promise.resolve(new Response(JSON.stringify({ code: 4029, msg: '请 42 秒后再试', data: null }), { status: 429, headers: { 'Retry-After': '42' } })),
    );
    await expect(api.post('/api/v1/auth/sms-code', { body: { phone: '13800000001', purpose: 'login' } })).rejects.toMatchObject({
      code: Code.RateLimited,
      retryAfterSeconds: 42,
    });
    expect(toast).toHaveBeenCalledWith('请 42 秒后再试');
    expect(parseRetryAfter(' 7 ')).toBe(7);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('sends a given token instead of the session one', async () => {
    setCookie('enterpriseToken', 'tok-e', 30);
    fetchMock.mockReturnValue(answer(200, { code: 200, msg: 'ok', data: null }));
    await api.post('/api/v1/auth/logout', { token: 'tok-p' });
    expect(fetchMock.mock.calls[0][1].headers.token).toBe('tok-p');
  });
});
