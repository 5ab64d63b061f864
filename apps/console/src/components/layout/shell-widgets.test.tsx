import { act, renderHook, screen } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { CountBadge, NoticeApprovalBadges } from './badges';
import { ENERGY_FIGURES, EnergyIntro } from './energy-intro';
import { useHoverMenu } from './use-hover-menu';
import { ensureWatermark, Watermark } from './watermark';

afterEach(() => vi.useRealTimers());

describe('navbar hover menus (console spec §2)', () => {
  it('opens after the delay, and at once while another is open', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useHoverMenu(600));
    act(() => result.current.enter('carManagement'));
    act(() => vi.advanceTimersByTime(599));
    expect(result.current.open).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.open).toBe('carManagement');
    act(() => result.current.enter('systemSetting'));
    expect(result.current.open).toBe('systemSetting');
  });

  it('does not open when the pointer leaves before the delay', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useHoverMenu(750));
    act(() => result.current.enter('avatar'));
    act(() => vi.advanceTimersByTime(500));
    act(() => result.current.leave());
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.open).toBeNull();
  });
});

describe('badges', () => {
  it("reads '99+' above 99", () => {
    renderWithProviders(<CountBadge count={120} icon={null} label="消息" onClick={() => undefined} testId="b" />);
    expect(screen.getByText('99+')).toBeInTheDocument();
  });
  it('shows the count up to 99', () => {
    renderWithProviders(<CountBadge count={99} icon={null} label="消息" onClick={() => undefined} testId="b" />);
    expect(screen.getByTitle('99')).toBeInTheDocument();
  });
});

describe('approval icon', () => {
  const withPermissions = (values: string[]) =>
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        new Response(JSON.stringify({ code: 200, msg: 'ok', data: { id: '1', name: 'x', roles: ['r'], flags: {}, permissions: values.map((permissionValue) => ({ permissionValue })) } })),
      ),
    );
  afterEach(() => vi.unstubAllGlobals());

  it('shows for a user who may view approvals (the permission of the count and /approve)', async () => {
    withPermissions(['as:approval:pageInfo']);
    renderWithProviders(<NoticeApprovalBadges notices={0} approvals={3} />);
    expect(await screen.findByTestId('approval-badge')).toBeInTheDocument();
  });

  it('stays hidden for a user who holds only the decision permission', async () => {
    withPermissions(['oss:as:approval', 'as:message:pageInfo']);
    renderWithProviders(<NoticeApprovalBadges notices={0} approvals={3} />);
    expect(await screen.findByTestId('notice-badge')).toBeInTheDocument();
    expect(screen.queryByTestId('approval-badge')).toBeNull();
  });
});

describe('energy introduction', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the four figures with apply and view-details', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const data = url.includes('/charging/open-status')
          ? { state: 'NOT_OPENED', blacklisted: false }
          : { id: '1', name: 'x', roles: ['r'], flags: {}, permissions: [{ permissionValue: 'oss:pc:energy:management' }] };
        return new Response(JSON.stringify({ code: 200, msg: 'ok', data }));
      }),
    );
    expect(ENERGY_FIGURES.map((f) => f.value)).toEqual(['19万+', '200万+', '15%起', '1000+']);
    renderWithProviders(<EnergyIntro onNavigate={() => undefined} />);
    for (const f of ['19万+', '200万+', '15%起', '1000+', '充电站', '充电桩', '物流企业的选择']) expect(screen.getByText(f)).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: '申请开通' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '查看详情' })).toBeInTheDocument();
  });
});

describe('watermark (console spec §1)', () => {
  it('puts the tiled layer back within 500 ms when it is removed or altered', () => {
    vi.useFakeTimers();
    const tile = vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    renderWithProviders(<Watermark text="演示管理员" />);
    const first = document.getElementById('fd-watermark');
    expect(first?.dataset.text).toBe('演示管理员');
    first?.remove();
    act(() => vi.advanceTimersByTime(500));
    const second = document.getElementById('fd-watermark');
    expect(second).not.toBeNull();
    if (second) second.style.display = 'none';
    act(() => vi.advanceTimersByTime(500));
    expect(document.getElementById('fd-watermark')?.style.display).not.toBe('none');
    tile.mockRestore();
  });

  it('redraws for another user name', () => {
    ensureWatermark('甲', () => 'data:image/png;base64,AA');
    const layer = ensureWatermark('乙', () => 'data:image/png;base64,BB');
    expect(layer.dataset.text).toBe('乙');
    expect(document.querySelectorAll('#fd-watermark')).toHaveLength(1);
  });
});
