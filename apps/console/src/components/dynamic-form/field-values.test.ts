import dayjs from 'dayjs';
import { LABEL_WIDTH_PX, REGION_LABEL_WIDTH_PX, labelWidthOf, valueTypeOf, type FormField } from './field-schema';
import { asValueType, detailText, toFormValues, toSubmitValues } from './field-values';

const status: FormField = { kind: 'select', name: 'status', label: '状态', options: [{ value: 1, label: '待维修' }, { value: 2, label: '已完成' }] };

describe('dynamic form values', () => {
  it('turns numbers into strings for fields typed as strings, and only for them', () => {
    const fields: FormField[] = [
      { kind: 'text', name: 'orderNo', label: '工单号' },
      { kind: 'number', name: 'mileage', label: '里程', valueType: 'string' },
      { kind: 'number', name: 'count', label: '数量' },
      { kind: 'money-fen', name: 'amountFen', label: '金额' },
      { ...status, name: 'tags', multiple: true, valueType: 'string' },
    ];
    expect(toSubmitValues(fields, { orderNo: 20240001, mileage: 1200, count: 3, amountFen: 350000, tags: [1, 2] })).toEqual({
      orderNo: '20240001', mileage: '1200', count: 3, amountFen: 350000, tags: ['1', '2'],
    });
    expect(valueTypeOf({ kind: 'textarea' })).toBe('string');
    expect(valueTypeOf({ kind: 'money-fen' })).toBe('number');
    expect(asValueType({ kind: 'select' }, 1)).toBe(1);
  });

  it('submits dates as text, ranges split into their keys, uploads as their keys, and leaves hidden fields out', () => {
    const fields: FormField[] = [
      { kind: 'date', name: 'day', label: '日期' },
      { kind: 'date-time', name: 'at', label: '时间' },
      { kind: 'date-range', name: 'period', label: '期间', keys: { start: 'startDate', end: 'endDate' } },
      { kind: 'upload', name: 'files', label: '附件', upload: { purpose: 'feedback' } },
      { kind: 'textarea', name: 'reason', label: '原因', hidden: (v) => v.day === undefined },
    ];
    const values = {
      day: dayjs('2026-11-20'),
      at: dayjs('2026-11-20 08:30:05'),
      period: [dayjs('2026-11-01'), dayjs('2026-11-30')],
      files: [{ name: 'a.png', url: '/api/v1/files/download?key=k1', saveUrl: 'ent/feedback/1/a.png' }],
      reason: '刮擦',
    };
    expect(toSubmitValues(fields, values)).toEqual({
      day: '2026-11-20', at: '2026-11-20 08:30:05', startDate: '2026-11-01', endDate: '2026-11-30', files: ['ent/feedback/1/a.png'], reason: '刮擦',
    });
    expect(toSubmitValues(fields, { ...values, day: undefined })).not.toHaveProperty('reason');
  });

  it('reads a record into the controls: dates parsed, ranges joined from their keys, defaults for empty values', () => {
    const fields: FormField[] = [
      { kind: 'date-time', name: 'at', label: '时间' },
      { kind: 'date-range', name: 'period', label: '期间', keys: { start: 's', end: 'e' } },
      { kind: 'select', name: 'status', label: '状态', initialValue: 1 },
    ];
    const values = toFormValues(fields, { at: '2026-11-20 08:30:05', s: '2026-11-01', e: '2026-11-30' });
    expect((values.at as dayjs.Dayjs).format('YYYY-MM-DD HH:mm:ss')).toBe('2026-11-20 08:30:05');
    expect((values.period as dayjs.Dayjs[]).map((d) => d.format('YYYY-MM-DD'))).toEqual(['2026-11-01', '2026-11-30']);
    expect(values.status).toBe(1);
  });

  it("shows '-' for empty values in the detail, yuan with two decimals for fen, labels for choices", () => {
    expect(detailText({ kind: 'text', name: 'a', label: 'a' }, '')).toBe('-');
    expect(detailText({ kind: 'text', name: 'a', label: 'a' }, null)).toBe('-');
    expect(detailText({ kind: 'upload', name: 'a', label: 'a' }, [])).toBe('-');
    expect(detailText({ kind: 'money-fen', name: 'a', label: 'a' }, 350000)).toBe('3,500.00');
    expect(detailText({ kind: 'money-fen', name: 'a', label: 'a' }, 0)).toBe('0.00');
    expect(detailText({ kind: 'number', name: 'a', label: 'a', unit: 'km' }, 1200)).toBe('1200 km');
    expect(detailText(status, 2)).toBe('已完成');
    expect(detailText({ ...status, multiple: true }, [1, 2])).toBe('待维修,已完成');
    expect(detailText({ kind: 'date', name: 'a', label: 'a' }, '2026-11-20T10:00:00')).toBe('2026-11-20');
    expect(detailText({ kind: 'date-range', name: 'a', label: 'a' }, ['2026-11-01', '2026-11-30'])).toBe('2026-11-01 至 2026-11-30');
    expect(detailText({ kind: 'province-city', name: 'a', label: 'a' }, { provinceName: '上海市', cityName: '上海市' })).toBe('上海市 上海市');
  });

  it('lays labels out 105 px wide, regional pickers 90 px', () => {
    expect(labelWidthOf({ kind: 'text' })).toBe(LABEL_WIDTH_PX);
    expect(LABEL_WIDTH_PX).toBe(105);
    expect(labelWidthOf({ kind: 'province-city' })).toBe(REGION_LABEL_WIDTH_PX);
    expect(labelWidthOf({ kind: 'region' })).toBe(90);
  });
});
