import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import '../messages';
import { foreseenRefusals, LockDialog } from './lock-dialog';

const answer = (code: number, data: unknown, msg = 'ok') => Promise.resolve(new Response(JSON.stringify({ code, msg, data }), { status: code === 200 ? 200 : 400 }));
const command = { id: 'c1', vehicleId: 'v1', plateNumber: '粤B12345', action: 'lock', reason: '逾期未还款', state: 'queued', failureReason: '', operatorName: '演示', createdAt: '', updatedAt: '' };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(() => answer(200, command));
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const lockCalls = () => fetchMock.mock.calls.filter(([url]) => String(url).includes('/lock/vehicles/v1/'));
const keyOf = (call: unknown[]) => ((call[1] as RequestInit).headers as Record<string, string>)['Idempotency-Key'];
const vehicle = { vehicleId: 'v1', plateNumber: '粤B12345', online: true, speedKmh: 0, charging: false };

describe('lock dialog', () => {
  it('needs a reason of 2 to 200 characters', async () => {
    renderWithProviders(<LockDialog open action="lock" vehicle={vehicle} onClose={() => undefined} />);
    fireEvent.click(await screen.findByRole('button', { name: '提 交' }));
    await screen.findByText('请输入操作原因');
    fireEvent.change(screen.getByTestId('lock-reason'), { target: { value: ' 欠 ' } });
    await screen.findByText('操作原因需为 2 到 200 个字');
    expect(lockCalls()).toHaveLength(0);
  });

  it('sends one lock command for a double click, with the trimmed reason and an Idempotency-Key', async () => {
    const onClose = vi.fn();
    renderWithProviders(<LockDialog open action="lock" vehicle={vehicle} onClose={onClose} />);
    fireEvent.change(await screen.findByTestId('lock-reason'), { target: { value: '  逾期未还款  ' } });
    const submit = screen.getByRole('button', { name: '提 交' });
    fireEvent.click(submit);
    fireEvent.click(submit);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(lockCalls()).toHaveLength(1);
    const [url, init] = lockCalls()[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/lock/vehicles/v1/lock');
    expect(JSON.parse(String(init.body))).toEqual({ reason: '逾期未还款' });
    expect(keyOf(lockCalls()[0])).toMatch(/.{16,}/);
    await screen.findByText('锁车指令已下发');
  });

  it("shows the server's interlock refusal and retries with the same key; a new opening gets a new key", async () => {
    fetchMock.mockImplementationOnce(() => answer(4000, null, '车辆行驶中，不能锁车'));
    const { rerender } = renderWithProviders(<LockDialog open action="lock" vehicle={vehicle} onClose={() => undefined} />);
    fireEvent.change(await screen.findByTestId('lock-reason'), { target: { value: '逾期未还款' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(await screen.findByTestId('lock-refusal')).toHaveTextContent('车辆行驶中，不能锁车');
    await new Promise((r) => setTimeout(r, 1600)); // past the dialog's click debounce
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(lockCalls()).toHaveLength(2));
    expect(keyOf(lockCalls()[1])).toBe(keyOf(lockCalls()[0]));

    rerender(<LockDialog open={false} action="lock" vehicle={vehicle} onClose={() => undefined} />);
    rerender(<LockDialog open action="lock" vehicle={vehicle} onClose={() => undefined} />);
    fireEvent.change(await screen.findByTestId('lock-reason'), { target: { value: '再次锁车' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(lockCalls()).toHaveLength(3));
    expect(keyOf(lockCalls()[2])).not.toBe(keyOf(lockCalls()[0]));
  });

  it('warns of the interlocks the list can already see', () => {
    expect(foreseenRefusals({ online: false, speedKmh: 30, charging: true })).toEqual(['offline', 'moving', 'charging']);
    expect(foreseenRefusals({ online: true, speedKmh: 0, charging: false })).toEqual([]);
  });
});
