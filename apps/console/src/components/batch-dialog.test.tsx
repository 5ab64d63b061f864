import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { BatchDialog, parseBatch } from './batch-dialog';

describe('batch dialog (console spec §2/§5)', () => {
  it('splits on line breaks and drops empty lines', () => {
    expect(parseBatch('沪A1\n\n  沪A2 \r\n\n')).toEqual(['沪A1', '沪A2']);
  });

  it('is titled 批量查询 plus the label, 600 px wide, with the hint and 取消/提交', () => {
    renderWithProviders(<BatchDialog open label="车牌号" onCancel={() => undefined} onSubmit={() => undefined} />);
    expect(screen.getByText('批量查询车牌号')).toBeInTheDocument();
    expect(screen.getByPlaceholderText('批量查询，用换行分隔')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /取\s*消/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /提\s*交/ })).toBeInTheDocument();
    expect((document.querySelector('.ant-modal') as HTMLElement).style.width).toBe('600px');
  });

  it('writes 取消 and 提交 exactly, with no space between the two characters', () => {
    renderWithProviders(<BatchDialog open label="VIN" onCancel={() => undefined} onSubmit={() => undefined} />);
    expect(screen.getByRole('button', { name: '取消' })).toHaveTextContent(/^取消$/);
    expect(screen.getByRole('button', { name: '提交' })).toHaveTextContent(/^提交$/);
  });

  it('is not closed by a backdrop click', async () => {
    const onCancel = vi.fn();
    renderWithProviders(<BatchDialog open label="VIN" onCancel={onCancel} onSubmit={() => undefined} />);
    const wrap = document.querySelector('.ant-modal-wrap') as HTMLElement;
    fireEvent.mouseDown(wrap);
    fireEvent.click(wrap);
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('submits the non-empty lines', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<BatchDialog open label="VIN" onCancel={() => undefined} onSubmit={onSubmit} />);
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'A\n\nB\n' } });
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    expect(onSubmit).toHaveBeenCalledWith(['A', 'B']);
  });

  it('refuses more than 250 lines with 每次批量查询，最大不超过250台', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<BatchDialog open label="VIN" onCancel={() => undefined} onSubmit={onSubmit} />);
    const lines = Array.from({ length: 251 }, (_, i) => `V${i}`).join('\n');
    fireEvent.change(screen.getByRole('textbox'), { target: { value: lines } });
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent('每次批量查询，最大不超过250台');
  });

  it('takes a different limit and unit', async () => {
    renderWithProviders(<BatchDialog open label="司机" max={2} unit="人" onCancel={() => undefined} onSubmit={() => undefined} />);
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'a\nb\nc' } });
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    expect(screen.getByRole('alert')).toHaveTextContent('每次批量查询，最大不超过2人');
  });
});
