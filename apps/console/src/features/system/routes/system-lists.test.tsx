import { waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import LoginLogPage from './login-log';
import RoleManagementPage from './role-management';
import UserManagementPage from './user-management';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = { id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: [{ permissionValue: 'as:sys:role:getList' }], flags: {} };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/me') return ok(me);
    if (url.startsWith('/api/v1/system/orgs')) return ok([]);
    return ok({ list: [], total: 0 });
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

/** The query parameters of the list calls to `path`. */
const listQueries = (path: string) =>
  fetchMock.mock.calls.map(([url]) => String(url)).filter((url) => url.startsWith(`${path}?`)).map((url) => Object.fromEntries(new URLSearchParams(url.split('?')[1])));

describe('system lists keep filters, page and size in the URL', () => {
  it('login log', async () => {
    renderWithProviders(<LoginLogPage />, { route: '/systemSetting/loginLog?loginType=2&succeeded=failure&principal=demo&page=3&size=50' });
    await waitFor(() => expect(listQueries('/api/v1/auth/login-logs')).toEqual([{ page: '3', size: '50', loginType: '2', succeeded: 'false', principal: 'demo' }]));
  });

  it('roles', async () => {
    renderWithProviders(<RoleManagementPage />, { route: '/systemSetting/roleManagement?name=运营&page=2' });
    await waitFor(() => expect(listQueries('/api/v1/system/roles')).toEqual([{ page: '2', size: '20', name: '运营' }]));
  });

  it('users', async () => {
    renderWithProviders(<UserManagementPage />, { route: '/systemSetting/userManagement?name=li&status=2&size=10' });
    await waitFor(() => expect(listQueries('/api/v1/system/users')).toEqual([{ page: '1', size: '10', name: 'li', status: '2' }]));
  });
});
