/** The driver form's values and the body they become. */
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import type { FileItem } from '@/components/upload/upload-control';
import type { components } from '@/lib/api/schema';
import type { Driver, DriverForm } from '../api/drivers';
import type { DriverStatus, LicenceClass } from './driver-labels';

type FileRef = components['schemas']['FileRefBody'];

/** The four document images of a driver, by form field (the server's field names too). */
export const DRIVER_IMAGE_FIELDS = ['licenceFront', 'licenceBack', 'idCardFront', 'idCardBack'] as const;
export type DriverImageField = (typeof DRIVER_IMAGE_FIELDS)[number];

export interface DriverFormValues {
  orgId?: string;
  name?: string;
  phone?: string;
  idNumber?: string;
  employeeNo?: string;
  licenceClass?: LicenceClass;
  licenceFirstIssueTime?: Dayjs | null;
  licenceExpireTime?: Dayjs | null;
  address?: string;
  status?: DriverStatus;
  hireTime?: Dayjs | null;
  remark?: string;
  licenceFront?: FileItem[];
  licenceBack?: FileItem[];
  idCardFront?: FileItem[];
  idCardBack?: FileItem[];
  /** The ID card's last valid day; ignored when `idCardLongTerm`. */
  idCardExpireTime?: Dayjs | null;
  /** A long-term ID card (长期): no end date. */
  idCardLongTerm?: boolean;
}

/** Dates go as yyyy-MM-dd ('' for none), as the gateway reads them. */
const date = (d: Dayjs | null | undefined) => (d ? d.format('YYYY-MM-DD') : '');
const day = (s: string | null | undefined) => (s ? dayjs(s) : null);

/**
 * An image field as sent: a new upload by its key; a stored image the user kept
 * as the server gave it (named, without its key, which the console never sees
 * unrevealed); none when removed.
 */
function imageRef(files: FileItem[] | undefined, stored: FileRef | null | undefined): FileRef | null {
  const file = files?.[0];
  if (!file) return null;
  if (file.saveUrl) return { key: file.saveUrl, name: file.name, contentType: '', sizeBytes: 0 };
  return stored && stored.name === file.name ? stored : null;
}

/** A stored image as the upload control's entry: its name only (no link until revealed). */
const imageItem = (ref: FileRef | null | undefined): FileItem[] => (ref?.name ? [{ name: ref.name, url: '' }] : []);

/**
 * The body to send. On edit an empty phone, ID number or address keeps the
 * stored value (the form only knows them masked), so they go empty unless retyped.
 */
export function driverBody(v: DriverFormValues, stored?: Driver): DriverForm {
  return {
    orgId: v.orgId ?? '',
    name: (v.name ?? '').trim(),
    phone: (v.phone ?? '').trim(),
    idNumber: (v.idNumber ?? '').trim().toUpperCase(),
    employeeNo: v.employeeNo ?? '',
    licenceClass: v.licenceClass ?? null,
    licenceFirstIssueTime: date(v.licenceFirstIssueTime),
    licenceExpireTime: date(v.licenceExpireTime),
    address: v.address ?? '',
    status: v.status ?? (stored ? (stored.status ?? null) : 'ACTIVE'),
    hireTime: date(v.hireTime),
    remark: v.remark ?? '',
    licenceFront: imageRef(v.licenceFront, stored?.licenceFront),
    licenceBack: imageRef(v.licenceBack, stored?.licenceBack),
    idCardFront: imageRef(v.idCardFront, stored?.idCardFront),
    idCardBack: imageRef(v.idCardBack, stored?.idCardBack),
    idCardExpireTime: v.idCardLongTerm ? '' : date(v.idCardExpireTime),
    idCardLongTerm: !!v.idCardLongTerm,
  };
}

/** A stored driver as form values (editing): personal values start empty, the masked ones show as placeholders. */
export function driverFormValues(d: Driver): DriverFormValues {
  return {
    orgId: d.orgId,
    name: d.name,
    phone: '',
    idNumber: '',
    address: '',
    employeeNo: d.employeeNo,
    licenceClass: d.licenceClass ?? undefined,
    licenceFirstIssueTime: day(d.licenceFirstIssueTime),
    licenceExpireTime: day(d.licenceExpireTime),
    status: d.status ?? undefined,
    hireTime: day(d.hireTime),
    remark: d.remark,
    licenceFront: imageItem(d.licenceFront),
    licenceBack: imageItem(d.licenceBack),
    idCardFront: imageItem(d.idCardFront),
    idCardBack: imageItem(d.idCardBack),
    idCardExpireTime: day(d.idCardExpireTime),
    idCardLongTerm: d.idCardLongTerm,
  };
}

/** New drivers start active. */
export const NEW_DRIVER_VALUES: DriverFormValues = { status: 'ACTIVE' };
