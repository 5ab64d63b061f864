/** The refund method and payee account fields that applying for and confirming a refund share. */
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { codeOptions } from '@/lib/codes';
import { REFUND_METHODS, type RefundMethod } from './labels';
import { P } from './parts';

type Translate = (key: string, options?: Record<string, unknown>) => string;

const bankOnly = (v: FormValues) => v.method !== 'BANK_TRANSFER';

export function payeeFields(t: Translate): FormField[] {
  return [
    { kind: 'radio', name: 'method', label: t(`${P}refund.method`), required: true, options: codeOptions(t, `${P}refundMethods`, REFUND_METHODS), initialValue: 'ORIGINAL_ROUTE' },
    { kind: 'text', name: 'payeeName', label: t(`${P}refund.payeeName`), required: true, maxLength: 100, hidden: bankOnly },
    { kind: 'text', name: 'payeeBankName', label: t(`${P}refund.payeeBankName`), required: true, maxLength: 100, hidden: bankOnly },
    { kind: 'text', name: 'payeeAccount', label: t(`${P}refund.payeeAccount`), required: true, maxLength: 40, hidden: bankOnly },
  ];
}

/** The payee part of a refund body from the submitted values. */
export function payeeOf(values: FormValues) {
  const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : '');
  return {
    method: (values.method as RefundMethod | undefined) ?? null,
    payeeName: text('payeeName'),
    payeeBankName: text('payeeBankName'),
    payeeAccount: text('payeeAccount'),
  };
}
