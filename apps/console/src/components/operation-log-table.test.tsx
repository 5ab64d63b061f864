import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { OperationLogTable, type OperationLogEntry } from './operation-log-table';

const entries = (page: number, size: number): OperationLogEntry[] =>
  Array.from({ length: Math.min(size, 25 - (page - 1) * size) }, (_, i) => ({
    id: `${page}-${i}`,
    remark: `修改车辆 ${(page - 1) * size + i + 1}`,
    operName: '演示管理员',
    operTime: '2026-11-20T08:30:00Z',
  }));

describe('operation-log table (console spec §2/§3)', () => {
  it('shows remark, operator and time, and pages through the log', async () => {
    const fetch = vi.fn((page: number, size: number) => Promise.resolve({ list: entries(page, size), total: 25 }));
    renderWithProviders(<OperationLogTable queryKey={['vehicle', 'v1', 'log']} fetch={fetch} />);
    expect(await screen.findByText('修改车辆 1')).toBeInTheDocument();
    for (const header of ['操作内容', '操作人', '操作时间', '序号']) expect(screen.getByRole('columnheader', { name: header })).toBeInTheDocument();
    expect(screen.getByText('共 25 条')).toBeInTheDocument();
    expect(fetch).toHaveBeenCalledWith(1, 20);
    await userEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(fetch).toHaveBeenCalledWith(2, 20));
    expect(await screen.findByText('修改车辆 21')).toBeInTheDocument();
  });
});
