/**
 * The pickers' lists from the gateway: GB/T 2260 areas (`/areas`, provinces
 * under 100000) and the operator's regions and operating cities (`/regions`),
 * fetched and cached through react-query.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { PROVINCE_ROOT_CODE } from '@/config/constants';
import { api } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';
import type { Area, AreaSource } from './area-source';

export type AreaBody = components['schemas']['AreaBody'];
export type RegionBody = components['schemas']['RegionBody'];

/** Areas and regions hardly change: keep them for 30 minutes. */
export const AREA_STALE_MS = 30 * 60_000;
export const REGIONAL_LIST = 'REGIONAL_LIST';
export const OPERATING_CITY = 'OPERATING_CITY';

/** A GB/T 2260 area as a picker entry: the code is also the id (the spec looks cities up by either). */
export function areaOf(body: AreaBody): Area {
  return { code: body.code, id: body.code, name: body.name };
}

/** A region or operating city as a picker entry (id falls back to the code). */
export function regionOf(body: RegionBody): Area {
  return { code: body.code, id: body.id || body.code, name: body.name };
}

export const areaKeys = {
  all: ['areas'] as const,
  children: (parentCode: string) => ['areas', 'children', parentCode] as const,
  regions: () => ['areas', 'regions', REGIONAL_LIST] as const,
  regionCities: (regionCode: string) => ['areas', 'regions', OPERATING_CITY, regionCode] as const,
};

/** A picker source bound to the gateway; lists are cached in `client`. Failures are silent (console spec §8: logged only). */
export function createApiAreaSource(client: QueryClient): AreaSource {
  const children = (parentCode: string) =>
    client.fetchQuery({
      queryKey: areaKeys.children(parentCode),
      queryFn: async () => (await api.get('/api/v1/areas', { params: { query: { parentCode } }, silent: true })).map(areaOf),
      staleTime: AREA_STALE_MS,
    });
  return {
    provinces: () => children(PROVINCE_ROOT_CODE),
    cities: (provinceCode) => children(provinceCode),
    regions: () =>
      client.fetchQuery({
        queryKey: areaKeys.regions(),
        queryFn: async () => (await api.get('/api/v1/regions', { params: { query: { typeCode: REGIONAL_LIST } }, silent: true })).map(regionOf),
        staleTime: AREA_STALE_MS,
      }),
    regionCities: (regionCode) =>
      client.fetchQuery({
        queryKey: areaKeys.regionCities(regionCode),
        queryFn: async () =>
          (await api.get('/api/v1/regions', { params: { query: { typeCode: OPERATING_CITY, parentCode: regionCode } }, silent: true })).map(regionOf),
        staleTime: AREA_STALE_MS,
      }),
  };
}

/** The gateway-bound source for the current query client (stable across renders). */
export function useApiAreaSource(): AreaSource {
  const client = useQueryClient();
  return useMemo(() => createApiAreaSource(client), [client]);
}
