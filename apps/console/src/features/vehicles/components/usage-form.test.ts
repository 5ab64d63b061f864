import dayjs from 'dayjs';
import type { UsageRecord } from '../api/usage-records';
import { toFen, yuan } from '@/lib/money';
import { endTimeProblem } from './usage-end-dialog';
import { endNotAfterStart, periodsExceedTerm, rentToOwnTotalFen, usageBody, usageFormField, usageFormValues } from './usage-form';
import { usageKindOfRoute } from './usage-labels';

const common = { vehicleId: 'v1', contractNo: ' HT-001 ', counterparty: '鹏程租赁', startTime: dayjs('2026-01-01'), endTime: dayjs('2027-01-01'), remark: '' };

describe('money (fen ↔ yuan)', () => {
  it('shows fen as yuan with two decimals and separators, blank for none', () => {
    expect(yuan(350000)).toBe('3,500.00');
    expect(yuan(5)).toBe('0.05');
    expect(yuan(0)).toBe('0.00');
    expect(yuan(123456789)).toBe('1,234,567.89');
    expect(yuan(undefined)).toBe('');
  });

  it('turns typed yuan into whole fen without float drift', () => {
    expect(toFen(0.29)).toBe(29);
    expect(toFen(3500.1)).toBe(350010);
    expect(toFen(null)).toBe(0);
  });
});

describe('usage record form', () => {
  it('maps each sub-page to its kind', () => {
    expect(usageKindOfRoute('carRentRecord')).toBe('RENT');
    expect(usageKindOfRoute('purchaseRecord')).toBe('PURCHASE');
    expect(usageKindOfRoute('carReplaceRecord')).toBe('REPLACEMENT');
    expect(usageKindOfRoute('rentForSaleRecord')).toBe('RENT_TO_OWN');
    expect(usageKindOfRoute('toString')).toBeUndefined();
  });

  it('sends a rental with its terms in fen and no other kind', () => {
    const body = usageBody('RENT', { ...common, rent: { monthlyRent: 3500, deposit: 7000.5, termMonths: 12, paymentDay: null } });
    expect(body).toMatchObject({
      vehicleId: 'v1', contractNo: 'HT-001', startTime: '2026-01-01', endTime: '2027-01-01',
      rent: { monthlyRentFen: 350000, depositFen: 700050, termMonths: 12, paymentDay: 0, returnTime: '' },
      purchase: null, replacement: null, rentToOwn: null,
    });
  });

  it('sends a purchase without an end date', () => {
    const body = usageBody('PURCHASE', { ...common, purchase: { price: 158000, purchaseTax: 0, invoiceNo: ' FP1 ' } });
    expect(body).toMatchObject({ endTime: '', purchase: { priceFen: 15800000, purchaseTaxFen: 0, invoiceNo: 'FP1', deliveryTime: '' }, rent: null });
  });

  it('sends a rent-to-own contract with the total the service checks (down + instalments + final)', () => {
    const rentToOwn = { termMonths: 24, downPayment: 20000, monthlyPayment: 3000, finalPayment: 10000, paidPeriods: 3, overduePeriods: 1 };
    expect(rentToOwnTotalFen(rentToOwn)).toBe((20000 + 3000 * 24 + 10000) * 100);
    expect(usageBody('RENT_TO_OWN', { ...common, rentToOwn }).rentToOwn).toMatchObject({ totalPriceFen: 10200000, paidPeriods: 3, overduePeriods: 1, termMonths: 24 });
  });

  it('keeps the stored vehicle and attachments on edit and reads a record back into the form', () => {
    const stored = {
      vehicleId: 'v9', plateNumber: '粤B12345', kind: 'REPLACEMENT', contractNo: 'HT-9', counterparty: '', startTime: '2026-02-01T04:00:00Z', endTime: '2026-03-01T04:00:00Z', remark: '',
      attachments: [{ key: 'k1', name: '合同.pdf', contentType: '', sizeBytes: 1 }],
      replacement: { replacedVehicleId: 'v2', replacedPlateNumber: '粤B00001', reason: 'REPAIR', temporary: true },
    } as unknown as UsageRecord;
    const values = usageFormValues(stored);
    expect(values.replacement).toEqual({ replacedVehicleId: 'v2', reason: 'REPAIR', temporary: true });
    expect(values.startTime?.format('YYYY-MM-DD')).toBe('2026-02-01');
    const body = usageBody('REPLACEMENT', { ...values, vehicleId: 'other' }, stored);
    expect(body).toMatchObject({ vehicleId: 'v9', attachments: stored.attachments, replacement: { replacedVehicleId: 'v2', reason: 'REPAIR', temporary: true } });
  });

  it('puts the server field errors on the form fields (fen fields by their yuan input)', () => {
    expect(usageFormField('rent.monthlyRentFen')).toEqual(['rent', 'monthlyRent']);
    expect(usageFormField('replacement.replacedVehicleId')).toEqual(['replacement', 'replacedVehicleId']);
    expect(usageFormField('endTime')).toEqual(['endTime']);
    expect(usageFormField('kind')).toBeUndefined();
    expect(usageFormField('rentToOwn.totalPriceFen')).toBeUndefined();
  });

  it('checks end after start, instalments within the term and end times of the end action', () => {
    expect(endNotAfterStart(dayjs('2026-01-01'), dayjs('2026-01-01'))).toBe(true);
    expect(endNotAfterStart(dayjs('2026-01-01'), dayjs('2026-01-02'))).toBe(false);
    expect(periodsExceedTerm(12, 10, 3)).toBe(true);
    expect(periodsExceedTerm(12, 10, 2)).toBe(false);
    const now = dayjs('2026-05-01T12:00:00');
    const active = { status: 'ACTIVE' as const, startTime: '2026-04-01T00:00:00+08:00' };
    expect(endTimeProblem(active, dayjs('2026-05-02T00:00:00'), now)).toBe('future');
    expect(endTimeProblem(active, dayjs('2026-03-31T00:00:00'), now)).toBe('beforeStart');
    expect(endTimeProblem({ ...active, status: 'PENDING' }, dayjs('2026-03-31T00:00:00'), now)).toBeUndefined();
    expect(endTimeProblem(active, null, now)).toBeUndefined();
  });
});
