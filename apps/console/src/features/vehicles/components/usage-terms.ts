/** The terms each usage kind shows, as text (list columns and the detail share them; '' shows as '--'). */
import { formatTime } from '@/lib/format';
import type { UsageRecord } from '../api/usage-records';
import { yuan } from '@/lib/money';
import type { UsageKind } from './vehicle-labels';

type Translate = (key: string, options?: Record<string, unknown>) => string;

export interface UsageTerm {
  key: string;
  /** i18n key of the label. */
  label: string;
  width: number;
  align?: 'right';
  text: (record: UsageRecord, t: Translate) => string;
}

const DATE = '{y}-{m}-{d}';
const day = (value: string | undefined) => formatTime(value, DATE);
const number = (value: number | undefined) => (value ? String(value) : '');

export const USAGE_TERMS: Record<UsageKind, UsageTerm[]> = {
  RENT: [
    { key: 'monthlyRent', label: 'vehicles.usage.monthlyRent', width: 130, align: 'right', text: (r) => yuan(r.rent?.monthlyRentFen) },
    { key: 'deposit', label: 'vehicles.usage.deposit', width: 120, align: 'right', text: (r) => yuan(r.rent?.depositFen) },
    { key: 'termMonths', label: 'vehicles.usage.termMonths', width: 90, align: 'right', text: (r) => number(r.rent?.termMonths) },
    { key: 'paymentDay', label: 'vehicles.usage.paymentDay', width: 100, align: 'right', text: (r) => number(r.rent?.paymentDay) },
    { key: 'returnTime', label: 'vehicles.usage.returnTime', width: 120, text: (r) => day(r.rent?.returnTime) },
  ],
  PURCHASE: [
    { key: 'price', label: 'vehicles.usage.price', width: 140, align: 'right', text: (r) => yuan(r.purchase?.priceFen) },
    { key: 'purchaseTax', label: 'vehicles.usage.purchaseTax', width: 120, align: 'right', text: (r) => yuan(r.purchase?.purchaseTaxFen) },
    { key: 'invoiceNo', label: 'vehicles.usage.invoiceNo', width: 150, text: (r) => r.purchase?.invoiceNo ?? '' },
    { key: 'deliveryTime', label: 'vehicles.usage.deliveryTime', width: 120, text: (r) => day(r.purchase?.deliveryTime) },
  ],
  REPLACEMENT: [
    { key: 'replacedPlate', label: 'vehicles.usage.replacedPlate', width: 120, text: (r) => r.replacement?.replacedPlateNumber ?? '' },
    {
      key: 'reason',
      label: 'vehicles.usage.reason',
      width: 110,
      text: (r, t) => (r.replacement?.reason ? t(`vehicles.usage.reasons.${r.replacement.reason}`, { defaultValue: '' }) : ''),
    },
    { key: 'temporary', label: 'vehicles.usage.temporary', width: 90, text: (r, t) => (r.replacement ? t(r.replacement.temporary ? 'vehicles.yes' : 'vehicles.no') : '') },
  ],
  RENT_TO_OWN: [
    { key: 'instalments', label: 'vehicles.usage.instalments', width: 90, align: 'right', text: (r) => number(r.rentToOwn?.termMonths) },
    { key: 'downPayment', label: 'vehicles.usage.downPayment', width: 120, align: 'right', text: (r) => yuan(r.rentToOwn?.downPaymentFen) },
    { key: 'monthlyPayment', label: 'vehicles.usage.monthlyPayment', width: 120, align: 'right', text: (r) => yuan(r.rentToOwn?.monthlyPaymentFen) },
    { key: 'finalPayment', label: 'vehicles.usage.finalPayment', width: 120, align: 'right', text: (r) => yuan(r.rentToOwn?.finalPaymentFen) },
    { key: 'totalPrice', label: 'vehicles.usage.totalPrice', width: 130, align: 'right', text: (r) => yuan(r.rentToOwn?.totalPriceFen) },
    {
      key: 'progress',
      label: 'vehicles.usage.progress',
      width: 170,
      text: (r, t) =>
        r.rentToOwn ? t('vehicles.usage.progressText', { paid: r.rentToOwn.paidPeriods, term: r.rentToOwn.termMonths, overdue: r.rentToOwn.overduePeriods }) : '',
    },
    { key: 'ownershipTransferTime', label: 'vehicles.usage.ownershipTransferTime', width: 120, text: (r) => day(r.rentToOwn?.ownershipTransferTime) },
  ],
};
