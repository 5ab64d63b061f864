/**
 * The usage-record form: its values (money in yuan, dates as days), the body
 * they become (money in fen, exactly one kind's terms), and the checks of the
 * vehicle service's `UsageDraft::parse` mirrored for the form.
 */
import type { FormRule } from 'antd';
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import type { UsageRecord, UsageRecordForm } from '../api/usage-records';
import { toFen, toYuan } from '@/lib/money';
import type { ReplacementReason } from './usage-labels';
import type { UsageKind } from './vehicle-labels';

type Translate = (key: string, options?: Record<string, unknown>) => string;
type Day = Dayjs | null | undefined;
type Amount = number | null | undefined;

/** Limits of the service. */
export const USAGE_LIMITS = { contractNo: 50, counterparty: 100, invoiceNo: 50, remark: 200, maxTermMonths: 120, minPaymentDay: 1, maxPaymentDay: 28 } as const;

export interface UsageFormValues {
  vehicleId?: string;
  contractNo?: string;
  counterparty?: string;
  startTime?: Day;
  endTime?: Day;
  remark?: string;
  rent?: { monthlyRent?: Amount; deposit?: Amount; termMonths?: Amount; paymentDay?: Amount; returnTime?: Day };
  purchase?: { price?: Amount; purchaseTax?: Amount; invoiceNo?: string; deliveryTime?: Day };
  replacement?: { replacedVehicleId?: string; reason?: ReplacementReason; temporary?: boolean };
  rentToOwn?: {
    termMonths?: Amount;
    downPayment?: Amount;
    monthlyPayment?: Amount;
    finalPayment?: Amount;
    paidPeriods?: Amount;
    overduePeriods?: Amount;
    ownershipTransferTime?: Day;
  };
}

const date = (d: Day) => (d ? d.format('YYYY-MM-DD') : '');
const day = (s: string | null | undefined) => (s ? dayjs(s) : null);
const whole = (n: Amount) => (n === null || n === undefined ? 0 : Math.trunc(n));

/** Down payment + every instalment + final payment, in fen: what a rent-to-own contract costs. */
export function rentToOwnTotalFen(r: UsageFormValues['rentToOwn']): number {
  return toFen(r?.downPayment) + toFen(r?.monthlyPayment) * Math.max(0, whole(r?.termMonths)) + toFen(r?.finalPayment);
}

/**
 * The body to send: the common fields and exactly the terms of `kind`. Editing
 * keeps the stored vehicle (a record's vehicle and kind never change) and its
 * attachments; a purchase has no end date.
 */
export function usageBody(kind: UsageKind, v: UsageFormValues, stored?: UsageRecord): UsageRecordForm {
  const body: UsageRecordForm = {
    vehicleId: stored?.vehicleId ?? v.vehicleId ?? '',
    contractNo: (v.contractNo ?? '').trim(),
    counterparty: (v.counterparty ?? '').trim(),
    startTime: date(v.startTime),
    endTime: kind === 'PURCHASE' ? '' : date(v.endTime),
    attachments: stored?.attachments ?? [],
    remark: v.remark ?? '',
    rent: null,
    purchase: null,
    replacement: null,
    rentToOwn: null,
  };
  switch (kind) {
    case 'RENT':
      body.rent = {
        monthlyRentFen: toFen(v.rent?.monthlyRent),
        depositFen: toFen(v.rent?.deposit),
        termMonths: whole(v.rent?.termMonths),
        // Empty is the service's default, the 1st.
        paymentDay: whole(v.rent?.paymentDay),
        returnTime: date(v.rent?.returnTime),
      };
      break;
    case 'PURCHASE':
      body.purchase = {
        priceFen: toFen(v.purchase?.price),
        purchaseTaxFen: toFen(v.purchase?.purchaseTax),
        invoiceNo: (v.purchase?.invoiceNo ?? '').trim(),
        deliveryTime: date(v.purchase?.deliveryTime),
      };
      break;
    case 'REPLACEMENT':
      body.replacement = {
        replacedVehicleId: v.replacement?.replacedVehicleId ?? '',
        reason: v.replacement?.reason ?? null,
        temporary: !!v.replacement?.temporary,
      };
      break;
    case 'RENT_TO_OWN':
      body.rentToOwn = {
        termMonths: whole(v.rentToOwn?.termMonths),
        downPaymentFen: toFen(v.rentToOwn?.downPayment),
        monthlyPaymentFen: toFen(v.rentToOwn?.monthlyPayment),
        finalPaymentFen: toFen(v.rentToOwn?.finalPayment),
        // Always the sum the service checks it against.
        totalPriceFen: rentToOwnTotalFen(v.rentToOwn),
        paidPeriods: whole(v.rentToOwn?.paidPeriods),
        overduePeriods: whole(v.rentToOwn?.overduePeriods),
        ownershipTransferTime: date(v.rentToOwn?.ownershipTransferTime),
      };
      break;
  }
  return body;
}

/** A stored record as form values (editing). */
export function usageFormValues(r: UsageRecord): UsageFormValues {
  return {
    vehicleId: r.vehicleId,
    contractNo: r.contractNo,
    counterparty: r.counterparty,
    startTime: day(r.startTime),
    endTime: day(r.endTime),
    remark: r.remark,
    rent: r.rent
      ? { monthlyRent: toYuan(r.rent.monthlyRentFen), deposit: toYuan(r.rent.depositFen), termMonths: r.rent.termMonths || null, paymentDay: r.rent.paymentDay || null, returnTime: day(r.rent.returnTime) }
      : undefined,
    purchase: r.purchase
      ? { price: toYuan(r.purchase.priceFen), purchaseTax: toYuan(r.purchase.purchaseTaxFen), invoiceNo: r.purchase.invoiceNo, deliveryTime: day(r.purchase.deliveryTime) }
      : undefined,
    replacement: r.replacement ? { replacedVehicleId: r.replacement.replacedVehicleId, reason: r.replacement.reason ?? undefined, temporary: !!r.replacement.temporary } : undefined,
    rentToOwn: r.rentToOwn
      ? {
          termMonths: r.rentToOwn.termMonths || null,
          downPayment: toYuan(r.rentToOwn.downPaymentFen),
          monthlyPayment: toYuan(r.rentToOwn.monthlyPaymentFen),
          finalPayment: toYuan(r.rentToOwn.finalPaymentFen),
          paidPeriods: r.rentToOwn.paidPeriods,
          overduePeriods: r.rentToOwn.overduePeriods,
          ownershipTransferTime: day(r.rentToOwn.ownershipTransferTime),
        }
      : undefined,
  };
}

/** The form fields the server's field names stand for (`rent.monthlyRentFen` → rent › monthlyRent). */
const FORM_FIELDS = new Set([
  'vehicleId', 'contractNo', 'counterparty', 'startTime', 'endTime', 'remark',
  'rent.monthlyRent', 'rent.deposit', 'rent.termMonths', 'rent.paymentDay', 'rent.returnTime',
  'purchase.price', 'purchase.purchaseTax', 'purchase.invoiceNo', 'purchase.deliveryTime',
  'replacement.replacedVehicleId', 'replacement.reason',
  'rentToOwn.termMonths', 'rentToOwn.downPayment', 'rentToOwn.monthlyPayment', 'rentToOwn.finalPayment', 'rentToOwn.paidPeriods', 'rentToOwn.overduePeriods',
  'rentToOwn.ownershipTransferTime',
]);

/** The form field of a server field error; undefined for one the form has no field for (the toast says it). */
export function usageFormField(serverField: string): string[] | undefined {
  const path = serverField.split('.').map((part, i, all) => (i === all.length - 1 ? part.replace(/Fen$/, '') : part));
  return FORM_FIELDS.has(path.join('.')) ? path : undefined;
}

/** The end must fall on a later day than the start. */
export const endNotAfterStart = (start: Day, end: Day) => !!start && !!end && !end.isAfter(start, 'day');

/** Paid and overdue instalments together cannot exceed the term. */
export const periodsExceedTerm = (term: Amount, paid: Amount, overdue: Amount) => whole(paid) + whole(overdue) > whole(term);

const tooLong = (t: Translate, label: string, max: number): FormRule => ({ max, message: t('vehicles.usage.rules.tooLong', { label, max }) });
const positive = (message: string): FormRule => ({
  validator: (_, v: Amount) => (v !== null && v !== undefined && v > 0 ? Promise.resolve() : Promise.reject(new Error(message))),
});
const between = (t: Translate, label: string, min: number, max: number, optional = false): FormRule => ({
  validator: (_, v: Amount) =>
    (optional && (v === null || v === undefined)) || (v !== null && v !== undefined && v >= min && v <= max)
      ? Promise.resolve()
      : Promise.reject(new Error(t('vehicles.usage.rules.between', { label, min, max }))),
});

/** The rules of every field, by the service's messages. */
export function usageRules(t: Translate) {
  const u = (key: string) => t(`vehicles.usage.${key}`);
  return {
    vehicleId: [{ required: true, message: t('vehicles.usage.rules.vehicleRequired') }] as FormRule[],
    contractNo: [{ required: true, whitespace: true, message: t('vehicles.usage.rules.contractNoRequired') }, tooLong(t, u('contractNo'), USAGE_LIMITS.contractNo)] as FormRule[],
    counterparty: [tooLong(t, u('counterparty'), USAGE_LIMITS.counterparty)] as FormRule[],
    remark: [tooLong(t, t('vehicles.fields.remark'), USAGE_LIMITS.remark)] as FormRule[],
    startTime: [{ required: true, message: t('vehicles.usage.rules.startRequired') }] as FormRule[],
    endTime: [
      { required: true, message: t('vehicles.usage.rules.endRequired') },
      ({ getFieldValue }) => ({
        validator: (_, v: Day) =>
          endNotAfterStart(getFieldValue('startTime') as Day, v) ? Promise.reject(new Error(t('vehicles.usage.rules.endAfterStart'))) : Promise.resolve(),
      }),
    ] as FormRule[],
    monthlyRent: [positive(t('vehicles.usage.rules.monthlyRentRequired'))],
    rentTerm: [between(t, u('termMonths'), 1, USAGE_LIMITS.maxTermMonths)],
    paymentDay: [between(t, u('paymentDay'), USAGE_LIMITS.minPaymentDay, USAGE_LIMITS.maxPaymentDay, true)],
    price: [positive(t('vehicles.usage.rules.priceRequired'))],
    invoiceNo: [tooLong(t, u('invoiceNo'), USAGE_LIMITS.invoiceNo)],
    replacedVehicleId: [
      { required: true, message: t('vehicles.usage.rules.replacedRequired') },
      ({ getFieldValue }) => ({
        validator: (_, v: string | undefined) =>
          v && v === getFieldValue('vehicleId') ? Promise.reject(new Error(t('vehicles.usage.rules.replacedSame'))) : Promise.resolve(),
      }),
    ] as FormRule[],
    reason: [{ required: true, message: t('vehicles.usage.rules.reasonRequired') }] as FormRule[],
    instalments: [between(t, u('instalments'), 1, USAGE_LIMITS.maxTermMonths)],
    monthlyPayment: [positive(t('vehicles.usage.rules.monthlyPaymentRequired'))],
    paidPeriods: [
      ({ getFieldValue }) => ({
        validator: (_, v: Amount) =>
          periodsExceedTerm(getFieldValue(['rentToOwn', 'termMonths']) as Amount, v, getFieldValue(['rentToOwn', 'overduePeriods']) as Amount)
            ? Promise.reject(new Error(t('vehicles.usage.rules.periodsExceedTerm')))
            : Promise.resolve(),
      }),
    ] as FormRule[],
  };
}
