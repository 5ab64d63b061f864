/** The annual-inspection code lists (checked against the generated API enums) and their tag colours. */
import { enumValues } from '@/lib/enum-values';
import type { components } from '@/lib/api/schema';

type Schemas = components['schemas'];
export type InspectionStatus = Schemas['InspectionStatus'];
export type InspectionClass = Schemas['InspectionClass'];
export type InspectionResult = Schemas['InspectionResult'];

/** Most urgent first: the tabs' order. */
export const INSPECTION_STATUSES = enumValues<InspectionStatus>()(
  'OVERDUE',
  'DUE_SOON',
  'VALID',
);
export const INSPECTION_CLASSES = enumValues<InspectionClass>()(
  'GOODS',
  'OPERATING_PASSENGER',
  'LARGE_PASSENGER',
  'SMALL_PASSENGER',
);
export const INSPECTION_RESULTS = enumValues<InspectionResult>()(
  'PASSED',
  'FAILED',
);

export const INSPECTION_COLORS: Record<InspectionStatus, string> = {
  OVERDUE: 'error',
  DUE_SOON: 'warning',
  VALID: 'success',
};

export const RESULT_COLORS: Record<InspectionResult, string> = {
  PASSED: 'success',
  FAILED: 'error',
};
