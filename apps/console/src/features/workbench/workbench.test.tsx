import { screen } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { Workbench } from './workbench';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));

function stubServer(permissions: string[]) {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      if (url.startsWith('/api/v1/me')) {
        return ok({ id: 'u1', name: '演示管理员', roles: [{ id: 'r1', name: '管理员' }], flags: {}, permissions: permissions.map((permissionValue) => ({ permissionValue })) });
      }
      if (url.startsWith('/api/v1/notices/unread-count')) return ok(2);
      if (url.startsWith('/api/v1/notices')) {
        return ok({ list: [{ id: 'n1', title: '车辆年检即将到期', content: '', category: 'system', read: false, publishTime: '2026-11-20T10:00:00+08:00', readTime: '' }], total: 2 });
      }
      return ok(null);
    }),
  );
}

describe('workbench 消息通知 card', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the unread notices the bell counts', async () => {
    stubServer(['as:message:pageInfo']);
    renderWithProviders(<Workbench />);
    expect(await screen.findByText('车辆年检即将到期', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByText('暂无新消息')).toBeNull();
    const calls = (fetch as unknown as { mock: { calls: [string][] } }).mock.calls.map(([u]) => u);
    expect(calls.some((u) => u.startsWith('/api/v1/notices?') && u.includes('read=false'))).toBe(true);
  });

  it('says 暂无新消息 to a user who may not read notices, without asking', async () => {
    stubServer([]);
    renderWithProviders(<Workbench />);
    expect(await screen.findByText('暂无新消息', {}, { timeout: 5000 })).toBeInTheDocument();
    const calls = (fetch as unknown as { mock: { calls: [string][] } }).mock.calls.map(([u]) => u);
    expect(calls.some((u) => u.startsWith('/api/v1/notices'))).toBe(false);
  });
});
