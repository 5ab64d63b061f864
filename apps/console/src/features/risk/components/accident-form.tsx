/** The accident's form as dynamic-form data: the same fields edit and show the detail. */
import dayjs from 'dayjs';
import type { FormRule } from 'antd';
import type { FileItem } from '@/components/upload/upload-control';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { DOCUMENT_ATTACHMENTS } from '@/lib/files';
import { detailText } from '@/lib/format';
import type { Accident, AccidentForm } from '../api/accidents';
import { useDriverOptions, useVehicleOptions } from '@/lib/pickers';
import { ATTACHMENT_PURPOSE, ATTACHMENT_RULES, fileRefsOf } from './attachments';
import { ACCIDENT_LIABILITIES, ACCIDENT_SEVERITIES, ACCIDENT_STATUSES, type AccidentLiability, type AccidentSeverity, type AccidentStatus } from './labels';
import { PointControl, pointText, searchControl, type GeoPoint } from './pickers';

type T = (key: string, options?: Record<string, unknown>) => string;

/** People counted in one accident: the server's bound. */
export const MAX_PEOPLE = 1000;

const notInFuture = (t: T): FormRule => ({
  validator: (_, value: unknown) =>
    dayjs.isDayjs(value) && value.isAfter(dayjs()) ? Promise.reject(new Error(t('risk:accident.futureTime'))) : Promise.resolve(),
});

const options = (t: T, group: string, codes: readonly string[]) => codes.map((value) => ({ value, label: t(`risk:accident.${group}.${value}`) }));

const filesOf = (list: Accident['images'] | undefined): FileItem[] => (list ?? []).map((f) => ({ name: f.name, url: f.url, saveUrl: f.key }));

/** The form's fields; the status shows once the accident exists (a new one is REPORTED). */
export function accidentFields(t: T, accident: Accident | undefined): FormField[] {
  const a = (key: string) => t(`risk:accident.${key}`);
  const upload = { purpose: ATTACHMENT_PURPOSE, ...ATTACHMENT_RULES, pictureCard: true };
  // Reports and certificates: images or PDF, under their own purpose.
  const documents = { purpose: 'document' as const, types: [...DOCUMENT_ATTACHMENTS.types], maxSizeMb: DOCUMENT_ATTACHMENTS.maxSizeMb, limit: DOCUMENT_ATTACHMENTS.limit };
  const vehicle = accident ? { value: accident.vehicleId, label: accident.plateNumber } : undefined;
  const driver = accident?.driverId ? { value: accident.driverId, label: accident.driverName } : undefined;
  return [
    {
      kind: 'custom',
      name: 'vehicleId',
      label: a('vehicle'),
      required: true,
      control: searchControl(useVehicleOptions, vehicle, 'accident-vehicle'),
      format: () => detailText(accident?.plateNumber),
      span: 12,
    },
    {
      kind: 'custom',
      name: 'driverId',
      label: a('driver'),
      placeholder: a('driverHint'),
      control: searchControl(useDriverOptions, driver, 'accident-driver'),
      format: () => detailText(accident?.driverName),
      span: 12,
    },
    { kind: 'date-time', name: 'accidentTime', label: a('accidentTime'), required: true, rules: [notInFuture(t)], span: 12 },
    { kind: 'select', name: 'severity', label: a('severity'), required: true, options: options(t, 'severities', ACCIDENT_SEVERITIES), span: 12 },
    { kind: 'text', name: 'address', label: a('address'), maxLength: 200, span: 24 },
    { kind: 'custom', name: 'point', label: a('point'), control: PointControl, format: (value) => pointText(value), span: 24 },
    { kind: 'textarea', name: 'description', label: a('description'), maxLength: 1000, span: 24 },
    { kind: 'select', name: 'liability', label: a('liability'), required: true, options: options(t, 'liabilities', ACCIDENT_LIABILITIES), initialValue: 'UNDETERMINED' satisfies AccidentLiability, span: 12 },
    {
      kind: 'select',
      name: 'status',
      label: a('status'),
      required: true,
      options: options(t, 'statuses', ACCIDENT_STATUSES),
      hidden: () => !accident,
      disabled: () => accident?.status === 'CLOSED',
      span: 12,
    },
    { kind: 'number', name: 'injuredCount', label: a('injuredCount'), min: 0, max: MAX_PEOPLE, precision: 0, initialValue: 0, span: 12 },
    { kind: 'number', name: 'fatalityCount', label: a('fatalityCount'), min: 0, max: MAX_PEOPLE, precision: 0, initialValue: 0, span: 12 },
    { kind: 'money-fen', name: 'estimatedLossFen', label: a('estimatedLoss'), span: 12 },
    { kind: 'money-fen', name: 'assessedLossFen', label: a('assessedLoss'), span: 12 },
    { kind: 'text', name: 'fixedLossCode', label: a('fixedLossCode'), maxLength: 64, span: 12 },
    { kind: 'text', name: 'insurancePolicyId', label: a('insurancePolicyId'), maxLength: 64, span: 12 },
    { kind: 'text', name: 'claimNo', label: a('claimNo'), maxLength: 64, span: 12 },
    { kind: 'money-fen', name: 'claimPaidFen', label: a('claimPaid'), span: 12 },
    { kind: 'text', name: 'repairOrderId', label: a('repairOrderId'), maxLength: 64, span: 12 },
    { kind: 'upload', name: 'images', label: a('images'), upload, span: 24 },
    { kind: 'upload', name: 'documents', label: a('documents'), upload: documents, span: 24 },
    { kind: 'textarea', name: 'remark', label: a('remark'), maxLength: 500, span: 24 },
  ];
}

/** A stored accident as the form's record (files as the upload control holds them). */
export function accidentRecord(accident: Accident | undefined): FormValues | undefined {
  if (!accident) return undefined;
  return { ...accident, images: filesOf(accident.images), documents: filesOf(accident.documents) };
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const whole = (v: unknown) => (v === undefined || v === null || v === '' ? 0 : Number(v));

/**
 * What is sent: `submitted` are the shaped values (dates as text, money in
 * fen already), `raw` the controls' values (the files with their names).
 * The area is not edited here, so it is sent back as it was.
 */
export function accidentBody(submitted: FormValues, raw: FormValues, accident: Accident | undefined): AccidentForm {
  return {
    vehicleId: text(submitted.vehicleId),
    driverId: text(submitted.driverId),
    accidentTime: text(submitted.accidentTime),
    address: text(submitted.address),
    area: accident?.area ?? null,
    point: (submitted.point as GeoPoint | null | undefined) ?? null,
    description: text(submitted.description),
    severity: submitted.severity as AccidentSeverity,
    liability: submitted.liability as AccidentLiability,
    injuredCount: whole(submitted.injuredCount),
    fatalityCount: whole(submitted.fatalityCount),
    estimatedLossFen: whole(submitted.estimatedLossFen),
    assessedLossFen: whole(submitted.assessedLossFen),
    fixedLossCode: text(submitted.fixedLossCode),
    insurancePolicyId: text(submitted.insurancePolicyId),
    claimNo: text(submitted.claimNo),
    claimPaidFen: whole(submitted.claimPaidFen),
    repairOrderId: text(submitted.repairOrderId),
    images: fileRefsOf(raw.images as FileItem[] | undefined),
    documents: fileRefsOf(raw.documents as FileItem[] | undefined),
    remark: text(submitted.remark),
    status: accident ? (submitted.status as AccidentStatus) : null,
  };
}
