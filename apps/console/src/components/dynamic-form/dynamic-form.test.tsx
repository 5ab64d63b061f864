import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { DynamicForm } from './dynamic-form';
import type { FormField } from './field-schema';

const fields: FormField[] = [
  { kind: 'text', name: 'orderNo', label: '工单号', required: true, span: 12 },
  { kind: 'select', name: 'status', label: '状态', required: true, options: [{ value: 1, label: '待维修' }, { value: 2, label: '已完成' }], span: 12 },
  { kind: 'number', name: 'mileage', label: '里程', valueType: 'string', unit: 'km' },
  { kind: 'money-fen', name: 'amountFen', label: '金额' },
  { kind: 'textarea', name: 'remark', label: '备注' },
];

const submitButton = <button type="submit">保存</button>;

/**
 * Moves the fake clock by `ms`, then lets what became due render: the form shows
 * an error a zero-delay timer after its check (antd's error debounce), and that
 * timer must run without moving the clock further.
 */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0);
  });
}

describe('dynamic form builder', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renders the declared fields for editing, labels 105 px wide', () => {
    renderWithProviders(<DynamicForm fields={fields} />);
    for (const f of fields) expect(screen.getByText(f.label)).toBeInTheDocument();
    expect(screen.getAllByRole('textbox').length).toBeGreaterThanOrEqual(2);
    const label = screen.getByText('工单号').closest('.ant-form-item-label') as HTMLElement;
    expect(label.style.flex).toContain('105px');
  });

  it('gives regional pickers a 90 px label', () => {
    renderWithProviders(<DynamicForm fields={[{ kind: 'region', name: 'area', label: '大区城市' }]} />);
    expect((screen.getByText('大区城市').closest('.ant-form-item-label') as HTMLElement).style.flex).toContain('90px');
  });

  it('refuses to submit with required fields empty, saying what is missing in Chinese', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<DynamicForm fields={fields} onSubmit={onSubmit}>{submitButton}</DynamicForm>);
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('请输入工单号')).toBeInTheDocument();
    expect(screen.getByText('请选择状态')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('checks a changed field again 1000 ms after the change, not before', async () => {
    vi.useFakeTimers();
    renderWithProviders(<DynamicForm fields={fields} record={{ orderNo: 'WX-1' }} />);
    const input = screen.getByDisplayValue('WX-1');
    fireEvent.change(input, { target: { value: '' } });
    await advance(999);
    expect(screen.queryByText('请输入工单号')).toBeNull();
    await advance(1);
    expect(screen.getByText('请输入工单号')).toBeInTheDocument();
  });

  it('restarts the 1000 ms wait on every change', async () => {
    vi.useFakeTimers();
    renderWithProviders(<DynamicForm fields={fields} record={{ orderNo: 'WX-1' }} />);
    const input = screen.getByDisplayValue('WX-1');
    fireEvent.change(input, { target: { value: '' } });
    await advance(600);
    fireEvent.change(input, { target: { value: ' ' } });
    await advance(999);
    expect(screen.queryByText('请输入工单号')).toBeNull();
    await advance(1);
    expect(screen.getByText('请输入工单号')).toBeInTheDocument();
  });

  it('submits numbers as strings for fields typed as strings, money in fen', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<DynamicForm fields={fields} record={{ orderNo: 'WX-1', status: 1 }} onSubmit={onSubmit}>{submitButton}</DynamicForm>);
    const [mileage, amount] = screen.getAllByRole('spinbutton');
    await userEvent.type(mileage, '1200');
    await userEvent.type(amount, '35.5');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toEqual({ orderNo: 'WX-1', status: 1, mileage: '1200', amountFen: 3550, remark: undefined });
  });

  it('shows and hides, enables and disables fields by the other values', async () => {
    const onSubmit = vi.fn();
    const dependent: FormField[] = [
      { kind: 'radio', name: 'result', label: '结果', options: [{ value: 'ok', label: '通过' }, { value: 'no', label: '驳回' }], initialValue: 'ok' },
      { kind: 'textarea', name: 'reason', label: '驳回原因', required: true, hidden: (v) => v.result !== 'no' },
      { kind: 'text', name: 'approver', label: '审批人', disabled: (v) => v.result === 'no' },
    ];
    renderWithProviders(<DynamicForm fields={dependent} onSubmit={onSubmit}>{submitButton}</DynamicForm>);
    expect(screen.queryByText('驳回原因')).toBeNull();
    expect(screen.getByRole('textbox')).toBeEnabled();
    await userEvent.click(screen.getByLabelText('驳回'));
    expect(await screen.findByText('驳回原因')).toBeInTheDocument();
    expect(screen.getAllByRole('textbox')[1]).toBeDisabled();
    await userEvent.click(screen.getByLabelText('通过'));
    await waitFor(() => expect(screen.queryByText('驳回原因')).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ result: 'ok', approver: undefined }));
  });

  it('fills in a record that arrives after the form is shown (a loaded record)', async () => {
    const { rerender } = renderWithProviders(<DynamicForm fields={fields} />);
    expect(screen.queryByDisplayValue('WX-9')).toBeNull();
    rerender(<DynamicForm fields={fields} record={{ orderNo: 'WX-9', status: 1 }} />);
    expect(await screen.findByDisplayValue('WX-9')).toBeInTheDocument();
  });

  it("renders the same fields read-only in detail mode: formatted values, '-' for empty", () => {
    renderWithProviders(<DynamicForm mode="detail" fields={fields} record={{ orderNo: 'WX-1', status: 2, mileage: 1200, amountFen: 350000, remark: '' }} />);
    expect(screen.queryAllByRole('textbox')).toHaveLength(0);
    expect(screen.queryAllByRole('spinbutton')).toHaveLength(0);
    expect(screen.getByText('WX-1')).toBeInTheDocument();
    expect(screen.getByText('已完成')).toBeInTheDocument();
    expect(screen.getByText('1200 km')).toBeInTheDocument();
    expect(screen.getByText('3,500.00')).toBeInTheDocument();
    expect(document.querySelector('[data-field="remark"]')).toHaveTextContent(/^-$/);
    expect((screen.getByText('工单号').closest('.ant-form-item-label') as HTMLElement).style.flex).toContain('105px');
  });
});
