import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { MaskedText } from './masked-text';

describe('masked text (console spec §4)', () => {
  it('toggles between masked and revealed with the eye, logging the reveal', async () => {
    const onReveal = vi.fn();
    let now = 1_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    renderWithProviders(<MaskedText value="13800138000" onReveal={onReveal} />);
    expect(screen.getByTestId('masked-value')).toHaveTextContent('138****8000');
    await userEvent.click(screen.getByRole('button', { name: '显示' }));
    expect(onReveal).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('masked-value')).toHaveTextContent('13800138000');
    now += 100; // within the 200 ms debounce
    await userEvent.click(screen.getByRole('button', { name: '隐藏' }));
    expect(screen.getByTestId('masked-value')).toHaveTextContent('13800138000');
    now += 200;
    await userEvent.click(screen.getByRole('button', { name: '隐藏' }));
    expect(screen.getByTestId('masked-value')).toHaveTextContent('138****8000');
    clock.mockRestore();
  });

  it('asks before revealing an ID image type', async () => {
    const onReveal = vi.fn();
    renderWithProviders(<MaskedText value="110101199001011234" sensitiveType={4} onReveal={onReveal} />);
    await userEvent.click(screen.getByRole('button', { name: '显示' }));
    expect(await screen.findByText('查看证件信息将被记录，确定查看吗？')).toBeInTheDocument();
    expect(onReveal).not.toHaveBeenCalled();
  });
});
