import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import '../messages';
import { OpenApplicationsDrawer } from './open-applications-drawer';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const application = {
  enterpriseName: '演示物流',
  applicantPhone: '',
  contactTime: '',
  id: '',
  handlerName: '',
  decideTime: '',
  rejectReason: '',
  approveRemark: '',
  remark: '',
};
const pending = { ...application, id: 'a2', applicantName: '张三', status: 'PENDING', applyTime: '2026-11-26T02:00:00Z' };
const rejected = {
  ...application,
  id: 'a1',
  applicantName: '李四',
  status: 'REJECTED',
  applyTime: '2026-11-20T02:00:00Z',
  decideTime: '2026-11-21T03:30:00Z',
  handlerName: '平台运营',
  remark: '车队 200 台',
  rejectReason: '资料不全',
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url.startsWith('/api/v1/charging/open-applications/export') && init?.method === 'POST') {
      return Promise.resolve(new Response(JSON.stringify({ code: 200, msg: '导出任务已创建', data: { id: 'job1' } })));
    }
    if (url.startsWith('/api/v1/charging/open-applications')) {
      const rows = url.includes('status=REJECTED') ? [rejected] : [pending, rejected];
      return ok({ list: rows, total: rows.length });
    }
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const calls = (prefix: string, method = 'GET') =>
  fetchMock.mock.calls.filter(([u, init]) => String(u).startsWith(prefix) && ((init as RequestInit | undefined)?.method ?? 'GET') === method).map(([u]) => String(u));

describe('the charging application history drawer', () => {
  it('lists the first page with serial numbers, status tags, how each was handled and -- for blanks', async () => {
    renderWithProviders(<OpenApplicationsDrawer open onClose={() => undefined} />);
    const drawer = await screen.findByTestId('open-applications-drawer');
    await within(drawer).findByText('张三');
    expect(calls('/api/v1/charging/open-applications')[0]).toBe('/api/v1/charging/open-applications?page=1&size=20');
    const [first, second] = within(drawer).getAllByRole('row').slice(1);
    expect(within(first).getByText('1')).toBeInTheDocument();
    expect(within(first).getByText('待处理')).toHaveClass('ant-tag');
    // Not handled yet: time, handler, note and response are blanks.
    expect(within(first).getAllByText('--')).toHaveLength(4);
    expect(within(second).getByText('2')).toBeInTheDocument();
    expect(within(second).getByText('未通过')).toHaveClass('ant-tag');
    expect(second).toHaveTextContent('平台运营');
    expect(second).toHaveTextContent('车队 200 台');
    expect(second).toHaveTextContent('资料不全');
  });

  it('asks nothing while closed', () => {
    renderWithProviders(<OpenApplicationsDrawer open={false} onClose={() => undefined} />);
    expect(calls('/api/v1/charging/open-applications')).toHaveLength(0);
  });

  it('filters by status and exports that filter without paging, then says where the file will be', async () => {
    renderWithProviders(<OpenApplicationsDrawer open onClose={() => undefined} />);
    const drawer = await screen.findByTestId('open-applications-drawer');
    await within(drawer).findByText('张三');
    fireEvent.mouseDown(within(screen.getByTestId('open-applications-status')).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('未通过'));
    await waitFor(() => expect(within(drawer).queryByText('张三')).toBeNull());
    expect(calls('/api/v1/charging/open-applications').at(-1)).toBe('/api/v1/charging/open-applications?page=1&size=20&status=REJECTED');

    fireEvent.click(within(drawer).getByTestId('export-button'));
    await waitFor(() => expect(calls('/api/v1/charging/open-applications/export', 'POST')).toEqual(['/api/v1/charging/open-applications/export?status=REJECTED']));
    expect(await screen.findByText('导出结果请到右上方个人信息下【导出记录】中查看下载结果')).toBeInTheDocument();
  });
});
