import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { AppDialog } from './app-dialog';

describe('shared dialog defaults (console spec §2)', () => {
  it("confirms with '提 交', cancels with '取 消' and is 30% wide", () => {
    renderWithProviders(<AppDialog open title="T" />);
    expect(screen.getByRole('button', { name: '提 交' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '取 消' })).toBeInTheDocument();
    expect((document.querySelector('.ant-modal') as HTMLElement).style.width).toBe('30%');
  });

  it('ignores repeated confirm clicks within 1.5 s', async () => {
    const onConfirm = vi.fn();
    let now = 10_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    renderWithProviders(<AppDialog open title="T" onConfirm={onConfirm} />);
    const confirm = screen.getByRole('button', { name: '提 交' });
    await userEvent.click(confirm);
    now += 1_000;
    await userEvent.click(confirm);
    expect(onConfirm).toHaveBeenCalledTimes(1);
    now += 600;
    await userEvent.click(confirm);
    expect(onConfirm).toHaveBeenCalledTimes(2);
    clock.mockRestore();
  });

  it('takes the first click of a dialog opened again at once', async () => {
    const onConfirm = vi.fn();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => 10_000);
    const { rerender } = renderWithProviders(<AppDialog open title="T" onConfirm={onConfirm} />);
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    rerender(<AppDialog open={false} title="T" onConfirm={onConfirm} />);
    rerender(<AppDialog open title="T" onConfirm={onConfirm} />);
    await userEvent.click(screen.getByRole('button', { name: '提 交' }));
    expect(onConfirm).toHaveBeenCalledTimes(2);
    clock.mockRestore();
  });

  it('does not close on an outside click', async () => {
    const onCancel = vi.fn();
    renderWithProviders(<AppDialog open title="T" onCancel={onCancel} />);
    await userEvent.click(document.querySelector('.ant-modal-wrap') as HTMLElement);
    expect(onCancel).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '取 消' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });
});
