import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { UserFormDialog } from './user-form-dialog';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const ORGS = [{ id: 'org-1', orgCode: 'HQ', name: '总部', parentId: '', level: 1, status: 1 }];
const ROLES = { list: [{ id: 'role-1', name: '车辆专员', description: '', permissionValues: [], dataScope: 1, dataScopeOrgIds: [], status: 1, userCount: 0, createTime: '' }], total: 1 };

describe('add user dialog', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn((url: string, init?: RequestInit) => {
      if (url.startsWith('/api/v1/system/orgs')) return ok(ORGS);
      if (url.startsWith('/api/v1/system/roles')) return ok(ROLES);
      if (url === '/api/v1/system/users' && init?.method === 'POST') return ok({ id: 'u1' });
      return ok(null);
    });
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('refuses a malformed phone with 请输入正确的手机号 and a short initial password', async () => {
    renderWithProviders(<UserFormDialog open onClose={() => undefined} />);
    await screen.findByTestId('user-form');
    fireEvent.change(screen.getByPlaceholderText('请输入手机号'), { target: { value: '2380013800' } });
    expect(await screen.findByText('请输入正确的手机号')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('初始密码'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await screen.findByText('长度在 8 到 20 个字符')).toBeInTheDocument();
  });

  it('sends nothing while required fields are empty', async () => {
    renderWithProviders(<UserFormDialog open onClose={() => undefined} />);
    await screen.findByTestId('user-form');
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await screen.findByText('请输入姓名', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText('请选择所属组织')).toBeInTheDocument();
    expect(screen.getByText('请至少选择一个角色')).toBeInTheDocument();
    expect(screen.getByText('请输入手机号', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => (init as RequestInit | undefined)?.method === 'POST')).toBe(false));
  });
});
