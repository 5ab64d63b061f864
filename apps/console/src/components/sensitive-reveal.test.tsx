import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { SensitiveReveal } from './sensitive-reveal';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });

let fetchMock: ReturnType<typeof vi.fn>;
const reveals = () => fetchMock.mock.calls.filter(([url]) => url === '/api/v1/sensitive/reveal');
function serve(permissions: string[], value = '13800138000') {
  fetchMock.mockImplementation((url: string) =>
    url === '/api/v1/me' ? ok(me(permissions)) : ok({ value, needsConfirmation: false, logId: 'log-1' }),
  );
}
let now = 1_000;

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
  now = 1_000;
  vi.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const renderReveal = (sensitiveType = 1) =>
  renderWithProviders(
    <SensitiveReveal masked="138****8000" sensitiveType={sensitiveType} subjectKind={2} subjectId="ap-1" sourceModule="approval" />,
    { route: '/approveDetails?id=ap-1' },
  );

describe('sensitive reveal (console spec §4, §6)', () => {
  it('shows only the masked value, with no eye and no call, without as:sensitive:view', async () => {
    serve(['as:approval:pageInfo']);
    renderReveal();
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/v1/me', expect.anything()));
    expect(screen.getByTestId('masked-value')).toHaveTextContent('138****8000');
    expect(screen.queryByRole('button', { name: '显示' })).not.toBeInTheDocument();
    expect(reveals()).toHaveLength(0);
  });

  it('reveals a phone without confirmation: one call naming the page and module', async () => {
    serve(['as:sensitive:view']);
    renderReveal(1);
    await userEvent.click(await screen.findByRole('button', { name: '显示' }));
    expect(await screen.findByText('13800138000')).toBeInTheDocument();
    expect(screen.queryByText('查看证件信息将被记录，确定查看吗？')).not.toBeInTheDocument();
    expect(reveals()).toHaveLength(1);
    expect(JSON.parse(String(reveals()[0][1].body))).toEqual({
      sensitiveType: 1, subjectKind: 2, subjectId: 'ap-1', pageUrl: '/approveDetails?id=ap-1', sourceModule: 'approval',
    });
  });

  it('makes one call per reveal: hiding calls nothing, revealing again calls once more; clicks within 200 ms are ignored', async () => {
    serve(['as:sensitive:view']);
    renderReveal(1);
    const eye = await screen.findByRole('button', { name: '显示' });
    await userEvent.click(eye);
    await screen.findByText('13800138000');
    now += 100; // within the debounce: ignored
    await userEvent.click(screen.getByRole('button', { name: '隐藏' }));
    expect(screen.getByText('13800138000')).toBeInTheDocument();
    now += 200;
    await userEvent.click(screen.getByRole('button', { name: '隐藏' }));
    expect(screen.getByTestId('masked-value')).toHaveTextContent('138****8000');
    expect(reveals()).toHaveLength(1);
    now += 200;
    await userEvent.click(screen.getByRole('button', { name: '显示' }));
    await screen.findByText('13800138000');
    expect(reveals()).toHaveLength(2);
  });

  it.each([4, 5, 6, 7, 9, 10])('asks before revealing image type %i and calls only after confirming', async (type) => {
    serve(['as:sensitive:view'], 'files/id-front.png');
    renderReveal(type);
    await userEvent.click(await screen.findByRole('button', { name: '显示' }));
    expect(await screen.findByText('查看证件信息将被记录，确定查看吗？')).toBeInTheDocument();
    expect(reveals()).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('files/id-front.png')).toBeInTheDocument();
    expect(reveals()).toHaveLength(1);
    expect(JSON.parse(String(reveals()[0][1].body))).toMatchObject({ sensitiveType: type });
  });

  it('sends nothing when the confirmation is cancelled', async () => {
    serve(['as:sensitive:view']);
    renderReveal(4);
    await userEvent.click(await screen.findByRole('button', { name: '显示' }));
    await userEvent.click(await screen.findByRole('button', { name: /取\s*消/ }));
    await waitFor(() => expect(screen.queryByText('查看证件信息将被记录，确定查看吗？')).not.toBeInTheDocument());
    expect(reveals()).toHaveLength(0);
  });

  it.each([2, 3, 8])('does not ask for non-image type %i', async (type) => {
    serve(['as:sensitive:view']);
    renderReveal(type);
    await userEvent.click(await screen.findByRole('button', { name: '显示' }));
    await waitFor(() => expect(reveals()).toHaveLength(1));
    expect(screen.queryByText('查看证件信息将被记录，确定查看吗？')).not.toBeInTheDocument();
  });
});
