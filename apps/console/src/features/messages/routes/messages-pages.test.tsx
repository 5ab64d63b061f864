import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { useBadgeCounts } from '@/components/layout/use-badge-counts';
import { renderWithProviders } from '@/testing/render';
import ApprovalDetailPage from './approval-detail';
import ApprovalListPage from './approval-list';
import NoticeDetailPage from './notice-detail';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const fail = (code: number, msg: string) => Promise.resolve(new Response(JSON.stringify({ code, msg, data: null })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });

const approval = {
  id: 'ap-1', kind: 1, title: '车辆调拨：沪A12345 上海→杭州', businessId: 'ALLOT-A-0001', applicantName: '运营专员', applicantPhone: '138****0002',
  plateNumber: '沪A12345', status: 1, detail: { fromOrg: '上海运营中心', toOrg: '杭州运营中心' }, applyTime: '2026-11-20T10:00:00+08:00', decideTime: '',
  history: [{ status: 1, operatorId: 'u2', operatorName: '运营专员', comment: '', operateTime: '2026-11-20T10:00:00+08:00' }],
};
const notice = { id: 'n-1', title: '系统维护通知', content: '本周六升级', category: 'system', read: false, publishTime: '2026-11-20T10:00:00+08:00', readTime: '' };

type Handler = (url: string, init: RequestInit) => Promise<Response> | undefined;
let fetchMock: ReturnType<typeof vi.fn>;
function serve(permissions: string[], handler: Handler) {
  fetchMock.mockImplementation((url: string, init: RequestInit) => (url === '/api/v1/me' ? ok(me(permissions)) : (handler(url, init) ?? fail(4004, 'nothing here'))));
}
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => url === path && (init?.method ?? 'GET') === method);

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('approval detail', () => {
  const renderDetail = () =>
    renderWithProviders(
      <Routes>
        <Route path="/approveDetails" element={<ApprovalDetailPage />} />
      </Routes>,
      { route: '/approveDetails?id=ap-1' },
    );

  it('reveals the applicant phone through /sensitive/reveal (subject: the approval)', async () => {
    serve(['as:approval:pageInfo', 'as:sensitive:view'], (url) =>
      url === '/api/v1/approvals/ap-1' ? ok(approval) : url === '/api/v1/sensitive/reveal' ? ok({ value: '13800000002', needsConfirmation: false, logId: 'l1' }) : undefined,
    );
    renderDetail();
    expect(await screen.findByText('138****0002')).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: '显示' }));
    expect(await screen.findByText('13800000002')).toBeInTheDocument();
    expect(calls('POST', '/api/v1/sensitive/reveal')).toHaveLength(1);
    expect(JSON.parse(String(calls('POST', '/api/v1/sensitive/reveal')[0][1].body))).toEqual({
      sensitiveType: 1, subjectKind: 2, subjectId: 'ap-1', pageUrl: '/approveDetails?id=ap-1', sourceModule: 'approval',
    });
  });

  it('refuses a rejection without a reason and sends nothing', async () => {
    serve(['as:approval:pageInfo', 'oss:as:approval'], (url) => (url === '/api/v1/approvals/ap-1' ? ok(approval) : undefined));
    renderDetail();
    await userEvent.click(await screen.findByTestId('reject-button'));
    await userEvent.click(await screen.findByRole('button', { name: '提 交' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('请输入驳回原因');
    expect(calls('POST', '/api/v1/approvals/ap-1/decision')).toHaveLength(0);
  });

  it('rejects with the reason and shows the business details by name', async () => {
    serve(['as:approval:pageInfo', 'oss:as:approval'], (url) =>
      url === '/api/v1/approvals/ap-1' ? ok(approval) : url.endsWith('/decision') ? ok({ ...approval, status: 3 }) : undefined,
    );
    renderDetail();
    expect(await screen.findByText('调出组织')).toBeInTheDocument();
    expect(screen.getByText('杭州运营中心')).toBeInTheDocument();
    await userEvent.click(screen.getByTestId('reject-button'));
    await userEvent.type(screen.getByTestId('decision-comment'), '  车辆已报废 ');
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(calls('POST', '/api/v1/approvals/ap-1/decision')).toHaveLength(1));
    expect(JSON.parse(String(calls('POST', '/api/v1/approvals/ap-1/decision')[0][1].body))).toEqual({ approve: false, comment: '车辆已报废' });
    expect(notify.toastSuccess).toHaveBeenCalledWith('审批已驳回');
  });

  it('offers no decision without oss:as:approval', async () => {
    serve(['as:approval:pageInfo'], (url) => (url === '/api/v1/approvals/ap-1' ? ok(approval) : undefined));
    renderDetail();
    expect(await screen.findByText('审批记录')).toBeInTheDocument();
    await waitFor(() => expect(calls('GET', '/api/v1/me')).toHaveLength(1));
    expect(screen.queryByTestId('approve-button')).not.toBeInTheDocument();
  });

  it('shows not found for an unknown approval', async () => {
    serve(['as:approval:pageInfo'], () => undefined);
    renderDetail();
    expect(await screen.findByText('内容不存在或已被删除')).toBeInTheDocument();
  });
});

describe('notice detail', () => {
  it('marks an unread notice read once when it opens', async () => {
    serve(['as:message:pageInfo'], (url) => (url === '/api/v1/notices/n-1' ? ok(notice) : url === '/api/v1/notices/read' ? ok({ updated: 1 }) : undefined));
    renderWithProviders(
      <Routes>
        <Route path="/noticeDetails" element={<NoticeDetailPage />} />
      </Routes>,
      { route: '/noticeDetails?id=n-1' },
    );
    expect(await screen.findByTestId('notice-content')).toHaveTextContent('本周六升级');
    await waitFor(() => expect(calls('POST', '/api/v1/notices/read')).toHaveLength(1));
    expect(JSON.parse(String(calls('POST', '/api/v1/notices/read')[0][1].body))).toEqual({ ids: ['n-1'], all: false });
    await screen.findByText('已读');
  });

  it('does not mark a read notice again', async () => {
    serve(['as:message:pageInfo'], (url) => (url === '/api/v1/notices/n-1' ? ok({ ...notice, read: true }) : undefined));
    renderWithProviders(
      <Routes>
        <Route path="/noticeDetails" element={<NoticeDetailPage />} />
      </Routes>,
      { route: '/noticeDetails?id=n-1' },
    );
    await screen.findByTestId('notice-content');
    expect(calls('POST', '/api/v1/notices/read')).toHaveLength(0);
  });

  it('opens the page an alarm notice points at', async () => {
    const link = '/carManagement/riskControll/riskAlarmRecord?alarmId=a-1';
    serve(['as:message:pageInfo'], (url) => (url === '/api/v1/notices/n-1' ? ok({ ...notice, read: true, category: 'alarm', link }) : undefined));
    renderWithProviders(
      <Routes>
        <Route path="/noticeDetails" element={<NoticeDetailPage />} />
        <Route path="/carManagement/riskControll/riskAlarmRecord" element={<div data-testid="alarm-page" />} />
      </Routes>,
      { route: '/noticeDetails?id=n-1' },
    );
    expect(await screen.findByText('告警通知')).toBeInTheDocument();
    await userEvent.click(await screen.findByTestId('notice-link'));
    expect(await screen.findByTestId('alarm-page')).toBeInTheDocument();
  });
});

describe('badge counts', () => {
  function Probe() {
    const { notices, approvals } = useBadgeCounts();
    return <div data-testid="counts">{`${notices}/${approvals}`}</div>;
  }

  it('reads both counts for a user holding both permissions', async () => {
    serve(['as:message:pageInfo', 'as:approval:pageInfo'], (url) => (url === '/api/v1/notices/unread-count' ? ok(3) : url === '/api/v1/approvals/count' ? ok(2) : undefined));
    renderWithProviders(<Probe />, { route: '/dashboard' });
    await waitFor(() => expect(screen.getByTestId('counts')).toHaveTextContent('3/2'));
  });

  it('asks for no count the user may not see', async () => {
    serve(['as:message:pageInfo'], (url) => (url === '/api/v1/notices/unread-count' ? ok(5) : undefined));
    renderWithProviders(<Probe />, { route: '/dashboard' });
    await waitFor(() => expect(screen.getByTestId('counts')).toHaveTextContent('5/0'));
    expect(calls('GET', '/api/v1/approvals/count')).toHaveLength(0);
  });

  it('asks for nothing on /selectNet', async () => {
    serve(['as:message:pageInfo', 'as:approval:pageInfo'], () => ok(7));
    renderWithProviders(<Probe />, { route: '/selectNet' });
    await waitFor(() => expect(calls('GET', '/api/v1/me')).toHaveLength(1));
    expect(screen.getByTestId('counts')).toHaveTextContent('0/0');
    expect(calls('GET', '/api/v1/notices/unread-count')).toHaveLength(0);
  });
});

describe('approval list', () => {
  it('exports the list with its status filter (/approval/export) and says where the file will be', async () => {
    serve(['as:approval:pageInfo'], (url) =>
      url.startsWith('/api/v1/approvals?')
        ? ok({ list: [approval], total: 1 })
        : url.startsWith('/api/v1/approvals/export')
          ? ok({ id: 'e-1', name: '审批列表', status: 1 })
          : undefined,
    );
    renderWithProviders(
      <Routes>
        <Route path="/approve" element={<ApprovalListPage />} />
      </Routes>,
      { route: '/approve?status=1' },
    );
    expect(await screen.findByText(approval.title)).toBeInTheDocument();
    await userEvent.click(screen.getByTestId('export-button'));
    await waitFor(() => expect(notify.toastSuccess).toHaveBeenCalledWith('导出结果请到右上方个人信息下【导出记录】中查看下载结果'));
    const [[url, init]] = fetchMock.mock.calls.filter(([u]) => String(u).startsWith('/api/v1/approvals/export'));
    expect(init.method).toBe('POST');
    expect(new URL(String(url), 'http://x').searchParams.get('status')).toBe('1');
    expect(new URL(String(url), 'http://x').searchParams.has('page')).toBe(false);
  });
});
