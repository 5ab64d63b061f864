import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import { afterEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { FilterBar, firstWrappedIndex, type FilterField } from './filter-bar';
import { RANGE_DEFAULT_TIMES } from './filter-values';

const plate: FilterField = { prop: 'plate', label: '车牌号', type: 'input' };

describe('filter bar (console spec §2/§4/§5)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('has 查询 (text configurable) and 重置', () => {
    const { unmount } = renderWithProviders(<FilterBar fields={[plate]} onSearch={() => undefined} />);
    expect(screen.getByRole('button', { name: /查\s*询/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /重\s*置/ })).toBeInTheDocument();
    unmount();
    renderWithProviders(<FilterBar fields={[plate]} onSearch={() => undefined} searchText="搜索车辆" />);
    expect(screen.getByRole('button', { name: '搜索车辆' })).toBeInTheDocument();
  });

  it('searches with the field values', async () => {
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[plate]} onSearch={onSearch} />);
    await userEvent.type(screen.getByPlaceholderText('请输入'), '沪A1');
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ plate: '沪A1' }));
  });

  it('searches on mount when a field has an initial value, unless disabled', async () => {
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[{ ...plate, initValue: '沪B' }]} onSearch={onSearch} />);
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ plate: '沪B' }));
    const quiet = vi.fn();
    renderWithProviders(<FilterBar fields={[{ ...plate, initValue: '沪B' }]} onSearch={quiet} searchOnInit={false} />);
    await new Promise((r) => setTimeout(r, 50));
    expect(quiet).not.toHaveBeenCalled();
  });

  it('resets to initial values, emits reset and searches again unless disabled', async () => {
    const onSearch = vi.fn();
    const onReset = vi.fn();
    renderWithProviders(<FilterBar fields={[{ ...plate, initValue: '沪C' }]} onSearch={onSearch} onReset={onReset} searchOnInit={false} />);
    const input = screen.getByPlaceholderText('请输入');
    await userEvent.clear(input);
    await userEvent.type(input, '粤B');
    await userEvent.click(screen.getByRole('button', { name: /重\s*置/ }));
    expect(onReset).toHaveBeenCalledTimes(1);
    expect(input).toHaveValue('沪C');
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ plate: '沪C' }));
  });

  it('does not re-search after reset when that is turned off', async () => {
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[plate]} onSearch={onSearch} searchOnReset={false} />);
    await userEvent.click(screen.getByRole('button', { name: /重\s*置/ }));
    await new Promise((r) => setTimeout(r, 50));
    expect(onSearch).not.toHaveBeenCalled();
  });

  it('shows the expand button only when the content is taller than 55 px', async () => {
    const height = vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get');
    height.mockReturnValue(40);
    const { unmount } = renderWithProviders(<FilterBar fields={[plate]} onSearch={() => undefined} />);
    expect(screen.queryByRole('button', { name: /展\s*开/ })).toBeNull();
    unmount();
    height.mockReturnValue(120);
    const onExpandChange = vi.fn();
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[plate]} onSearch={onSearch} onExpandChange={onExpandChange} />);
    await userEvent.click(await screen.findByRole('button', { name: /展\s*开/ }));
    expect(onExpandChange).toHaveBeenCalledWith(true);
    await waitFor(() => expect(onSearch).toHaveBeenCalled());
    expect(screen.getByRole('button', { name: /收\s*起/ })).toBeInTheDocument();
  });

  it('refuses to search with an incomplete month range and says why', async () => {
    const toast = vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    const onSearch = vi.fn();
    const months: FilterField = { prop: 'months', label: '月份', type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' }, initValue: [dayjs('2024-03-01'), null] };
    renderWithProviders(<FilterBar fields={[months]} onSearch={onSearch} searchOnInit={false} />);
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    expect(await screen.findByText('请选择完整月份')).toBeInTheDocument();
    await waitFor(() => expect(toast).toHaveBeenCalledWith('搜索失败，请检查搜索区域内容是否填写正确'));
    expect(onSearch).not.toHaveBeenCalled();
  });

  it('refuses a month range that starts after it ends', async () => {
    vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
    const months: FilterField = { prop: 'months', label: '月份', type: 'rangeMonth', keys: { start: 's', end: 'e' }, initValue: [dayjs('2024-05-01'), dayjs('2024-03-01')] };
    renderWithProviders(<FilterBar fields={[months]} onSearch={() => undefined} searchOnInit={false} />);
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    expect(await screen.findByText('开始时间不允许大于结束时间')).toBeInTheDocument();
  });

  it('requires keys for a month range', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => renderWithProviders(<FilterBar fields={[{ prop: 'm', label: '月份', type: 'rangeMonth' }]} onSearch={() => undefined} />)).toThrow(/needs keys/);
  });

  it('debounces text changes by 500 ms', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onFieldChange = vi.fn();
    renderWithProviders(<FilterBar fields={[plate, { prop: 'kind', label: '类型', type: 'select', options: [{ value: 1, label: '货车' }] }]} onSearch={() => undefined} onFieldChange={onFieldChange} />);
    const input = screen.getByPlaceholderText('请输入');
    fireEvent.change(input, { target: { value: '沪' } });
    fireEvent.change(input, { target: { value: '沪A' } });
    act(() => vi.advanceTimersByTime(499));
    expect(onFieldChange).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onFieldChange).toHaveBeenCalledTimes(1);
    expect(onFieldChange).toHaveBeenCalledWith('plate', '沪A');
  });

  it('opens the batch dialog for batch input and takes its lines', async () => {
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[{ prop: 'plates', label: '车牌号', type: 'batchInput' }]} onSearch={onSearch} />);
    await userEvent.click(screen.getByRole('button', { name: /批\s*量/ }));
    fireEvent.change(await screen.findByPlaceholderText('批量查询，用换行分隔'), { target: { value: '沪A1\n\n沪A2' } });
    await userEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ plates: ['沪A1', '沪A2'] }));
  });

  it('renders every field type of the spec', () => {
    const types = ['input', 'autocomplete', 'datetime', 'date', 'daterange', 'datetimerange', 'month', 'checkbox', 'select', 'selectGroup', 'cascader', 'selectTree', 'citys', 'citys-charge', 'blogCity', 'batchInput', 'inputRange', 'DstOrgSelector', 'selectDDuser'] as const;
    const fields: FilterField[] = [
      ...types.map((type) => ({ prop: type, label: type, type, options: [], loadOptions: type === 'selectDDuser' ? () => Promise.resolve([]) : undefined })),
      { prop: 'rangeMonth', label: 'rangeMonth', type: 'rangeMonth', keys: { start: 's', end: 'e' } },
      { prop: 'slot', label: 'slot', type: 'slot', render: () => <span>自定义插槽</span> },
      { prop: 'custom', label: 'custom', type: () => <span>自定义组件</span> },
    ];
    renderWithProviders(<FilterBar fields={fields} onSearch={() => undefined} />);
    for (const f of fields) expect(screen.getByText(f.label)).toBeInTheDocument();
    expect(screen.getByText('自定义插槽')).toBeInTheDocument();
    expect(screen.getByText('自定义组件')).toBeInTheDocument();
  });

  it('keeps what the user typed when the fields are rebuilt with new labels (language switch)', async () => {
    const onSearch = vi.fn();
    const { rerender } = renderWithProviders(<FilterBar fields={[{ ...plate, initValue: '沪A' }]} onSearch={onSearch} searchOnInit={false} />);
    const box = screen.getByRole('textbox');
    await userEvent.clear(box);
    await userEvent.type(box, '京B123');
    rerender(<FilterBar fields={[{ ...plate, label: 'Plate', initValue: '沪A' }]} onSearch={onSearch} searchOnInit={false} />);
    expect(screen.getByText('Plate')).toBeInTheDocument();
    expect(screen.getByRole('textbox')).toHaveValue('京B123');
  });

  it('writes 查询, 重置, 展开 and 批量 exactly, with no space between the two characters', async () => {
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(120);
    renderWithProviders(<FilterBar fields={[{ prop: 'plates', label: '车牌号', type: 'batchInput' }]} onSearch={() => undefined} />);
    expect(screen.getByRole('button', { name: '查询' })).toHaveTextContent(/^查询$/);
    expect(screen.getByRole('button', { name: '重置' })).toHaveTextContent(/^重置$/);
    expect(screen.getByRole('button', { name: '批量' })).toHaveTextContent(/^批量$/);
    // (its name also carries the arrow icon's label)
    expect(await screen.findByRole('button', { name: /展开/ })).toHaveTextContent(/^展开$/);
  });

  it('ends a date-time range at 23:59:59 unless the user picks a time', async () => {
    expect(RANGE_DEFAULT_TIMES.map((d) => d.format('HH:mm:ss'))).toEqual(['00:00:00', '23:59:59']);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 15, 10, 30, 0));
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[{ prop: 'period', label: '时间', type: 'datetimerange' }]} onSearch={onSearch} searchOnInit={false} />);
    const [start] = screen.getAllByRole('textbox');
    fireEvent.mouseDown(start);
    fireEvent.click(start);
    const pick = async (date: string) => {
      const cell = await waitFor(() => {
        const found = document.querySelector(`td[title="${date}"]`);
        expect(found).not.toBeNull();
        return found as HTMLElement;
      });
      fireEvent.click(cell);
      fireEvent.click(screen.getByRole('button', { name: /确\s*定/ }));
    };
    await pick('2026-11-02');
    await pick('2026-11-20');
    await userEvent.click(screen.getByRole('button', { name: '查询' }));
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ period: ['2026-11-02 00:00:00', '2026-11-20 23:59:59'] }));
  });

  it('finds the first field laid out below the first row', () => {
    expect(firstWrappedIndex([])).toBeUndefined();
    expect(firstWrappedIndex([{ offsetTop: 0 }, { offsetTop: 0 }])).toBeUndefined();
    expect(firstWrappedIndex([{ offsetTop: 0 }, { offsetTop: 0 }, { offsetTop: 48 }, { offsetTop: 48 }])).toBe(2);
  });

  it('hides the rows below the first while collapsed, so not even their top edge shows', async () => {
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(120);
    // The third field wraps to a second row.
    vi.spyOn(HTMLElement.prototype, 'offsetTop', 'get').mockImplementation(function (this: HTMLElement) {
      return this.textContent?.includes('司机') ? 48 : 0;
    });
    const fields: FilterField[] = [plate, { prop: 'vin', label: '车架号', type: 'input' }, { prop: 'driver', label: '司机', type: 'input' }];
    renderWithProviders(<FilterBar fields={fields} onSearch={() => undefined} />);
    const item = (label: string) => screen.getByText(label).closest('.ant-form-item') as HTMLElement;
    expect(item('车牌号')).toBeVisible();
    expect(item('车架号')).toBeVisible();
    expect(item('司机')).not.toBeVisible();
    await userEvent.click(await screen.findByRole('button', { name: /展开/ }));
    expect(item('司机')).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: /收起/ }));
    expect(item('司机')).not.toBeVisible();
  });

  it('opens on arrival when a folded row holds a filter (a shared link), and then only when the user asks', async () => {
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(120);
    vi.spyOn(HTMLElement.prototype, 'offsetTop', 'get').mockImplementation(function (this: HTMLElement) {
      return this.textContent?.includes('司机') ? 48 : 0;
    });
    const fields: FilterField[] = [plate, { prop: 'vin', label: '车架号', type: 'input' }, { prop: 'driver', label: '司机', type: 'input' }];
    const item = (label: string) => screen.getByText(label).closest('.ant-form-item') as HTMLElement;
    const onExpandChange = vi.fn();
    const { unmount } = renderWithProviders(<FilterBar fields={fields} values={{ driver: '张三' }} onSearch={() => undefined} onExpandChange={onExpandChange} />);
    expect(await screen.findByRole('button', { name: /收起/ })).toBeInTheDocument();
    expect(item('司机')).toBeVisible();
    expect(screen.getByDisplayValue('张三')).toBeInTheDocument();
    expect(onExpandChange).toHaveBeenCalledWith(true);
    // The user may still fold it; it stays folded.
    await userEvent.click(screen.getByRole('button', { name: /收起/ }));
    expect(item('司机')).not.toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: '查询' }));
    expect(item('司机')).not.toBeVisible();
    unmount();

    // A filter in the first row, or a folded one at its default, leaves the bar folded.
    const withDefault = fields.map((f) => (f.prop === 'driver' ? { ...f, initValue: '李四' } : f));
    renderWithProviders(<FilterBar fields={withDefault} values={{ plate: '沪A1', driver: '李四' }} onSearch={() => undefined} />);
    expect(await screen.findByRole('button', { name: /展开/ })).toBeInTheDocument();
    expect(item('司机')).not.toBeVisible();
  });
});
