/** Annual inspections (drivingLicense): list, export, detail, record, import and its template. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, postForm, type CallOptions } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';
import { codesOf } from '@/lib/codes';
import { downloadFrom } from '@/lib/download';
import { i18n } from '@/lib/i18n';
import { manyOf, oneOf, type ListFilters } from '@/lib/list-url';
import { INSPECTION_STATUSES } from '../components/inspection-labels';

export type Inspection = components['schemas']['InspectionBody'];
export type InspectionDetail = components['schemas']['InspectionDetailBody'];
export type InspectionRecord = components['schemas']['InspectionRecordBody'];
export type RecordForm = components['schemas']['RecordInspectionForm'];
export type InspectionQuery = NonNullable<
  operations['list_inspections']['parameters']['query']
>;

export const INSPECTIONS_KEY = ['vehicle-management', 'inspections'] as const;
/** The template route's permission (the gateway's, as for the vehicle imports). */
export const INSPECTION_TEMPLATE_PERMISSION = 'as:inspection';

const text = (filters: ListFilters, key: string) =>
  oneOf(filters, key) || undefined;

/** URL filters to the list's query parameters (the export takes the same, its page ignored). */
export function inspectionQuery(
  filters: ListFilters,
  page: number,
  size: number,
): InspectionQuery {
  return {
    page,
    size,
    plateNumbers: manyOf(filters, 'plateNumbers'),
    vins: manyOf(filters, 'vins'),
    orgIds: manyOf(filters, 'orgIds'),
    statuses: codesOf(manyOf(filters, 'statuses'), INSPECTION_STATUSES),
    expireTimeStart: text(filters, 'expireTimeStart'),
    expireTimeEnd: text(filters, 'expireTimeEnd'),
  };
}

export const listInspections = (query: InspectionQuery) =>
  api.get('/api/v1/maintenance/inspections', { params: { query } });

export const exportInspections = (
  query: InspectionQuery,
  options: CallOptions,
) =>
  api.post('/api/v1/maintenance/inspections/export', {
    ...options,
    params: { query: { ...query, page: undefined, size: undefined } },
  });

export const importInspections = (file: File, options: CallOptions) =>
  postForm('/api/v1/maintenance/inspections/import', { file }, options);

export const downloadInspectionTemplate = () =>
  downloadFrom(
    '/api/v1/maintenance/inspections/import-template',
    `${i18n.t('vehicleManagement:inspection.templateName')}.xlsx`,
  );

export function useInspectionDetail(vehicleId: string | undefined) {
  return useQuery({
    queryKey: [...INSPECTIONS_KEY, 'detail', vehicleId ?? ''],
    queryFn: () =>
      api.get('/api/v1/maintenance/inspections/{vehicleId}', {
        params: { path: { vehicleId: vehicleId ?? '' } },
      }),
    enabled: !!vehicleId,
  });
}

/** A record changes the list and the detail: the subject is fetched again. */
export function useRecordInspection() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({
      vehicleId,
      body,
    }: {
      vehicleId: string;
      body: RecordForm;
    }) =>
      api.post('/api/v1/maintenance/inspections/{vehicleId}/record', {
        params: { path: { vehicleId } },
        body,
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: INSPECTIONS_KEY }),
  });
}
