import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { ChargingApplyButton } from './charging-apply-button';

const APPLIED = '您的开通申请已经提交成功，工作人员将在3个工作日内与您联系，请保持电话畅通';

/** A gateway with one user and one enterprise state; applications are counted. */
function stack({ state = 'NOT_OPENED', permissions = ['oss:pc:energy:management'] }: { state?: string; permissions?: string[] } = {}) {
  const applications: unknown[] = [];
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const ok = (data: unknown) => new Response(JSON.stringify({ code: 200, msg: 'ok', data }));
    if (url.includes('/charging/open-applications') && init?.method === 'POST') {
      applications.push(JSON.parse(String(init.body)));
      return ok({ id: 'app-1', status: 'PENDING', applyTime: '2026-11-25T08:00:00Z' });
    }
    if (url.includes('/charging/open-status')) return ok({ state: applications.length ? 'APPLYING' : state, blacklisted: false });
    return ok({ id: 'u', name: 'x', roles: ['r'], flags: {}, permissions: permissions.map((permissionValue) => ({ permissionValue })) });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { applications, fetchMock };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('charging apply button (console spec §2, §4, §8, §9)', () => {
  it('applies once for clicks within 300 ms, shows the success text and then reads 申请中', async () => {
    const { applications } = stack();
    renderWithProviders(<ChargingApplyButton />);
    const button = await screen.findByRole('button', { name: '申请开通' });
    await waitFor(() => expect(button).toBeEnabled());
    vi.useFakeTimers();
    fireEvent.click(button);
    act(() => vi.advanceTimersByTime(200));
    fireEvent.click(button);
    act(() => vi.advanceTimersByTime(299));
    expect(applications).toHaveLength(0);
    act(() => vi.advanceTimersByTime(1));
    vi.useRealTimers();
    expect(await screen.findByText(APPLIED)).toBeInTheDocument();
    expect(applications).toHaveLength(1);
    const applying = await screen.findByRole('button', { name: '申请中' });
    expect(applying).toBeDisabled();
  });

  it('reads 申请中, disabled, while an application is pending', async () => {
    stack({ state: 'APPLYING' });
    renderWithProviders(<ChargingApplyButton />);
    expect(await screen.findByRole('button', { name: '申请中' })).toBeDisabled();
  });

  it('shows nothing once charging is open, or without the energy menu permission', async () => {
    const { fetchMock } = stack({ state: 'OPENED' });
    const { container, unmount } = renderWithProviders(<ChargingApplyButton />);
    // Asked, then gone: the button shows while the state loads.
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => String(url).includes('open-status'))).toBe(true));
    await waitFor(() => expect(container.querySelector('button')).toBeNull());
    unmount();
    vi.unstubAllGlobals();
    const other = stack({ permissions: ['as:sys:car'] });
    renderWithProviders(<ChargingApplyButton />);
    await waitFor(() => expect(other.fetchMock).toHaveBeenCalled());
    expect(screen.queryByRole('button')).toBeNull();
    expect(other.fetchMock.mock.calls.some(([url]) => String(url).includes('open-status'))).toBe(false);
  });
});
