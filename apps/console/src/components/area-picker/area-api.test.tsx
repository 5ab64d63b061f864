import { QueryClient } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { areaOf, createApiAreaSource, regionOf } from './area-api';
import { ProvinceCityPicker } from './province-city-picker';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
let fetchMock: ReturnType<typeof vi.fn>;
const urls = () => fetchMock.mock.calls.map(([url]) => String(url));

const provinces = [
  { code: '310000', parentCode: '100000', name: '上海市', level: 1 },
  { code: '440000', parentCode: '100000', name: '广东省', level: 1 },
];
const guangdong = [
  { code: '440100', parentCode: '440000', name: '广州市', level: 2 },
  { code: '440300', parentCode: '440000', name: '深圳市', level: 2 },
];

beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/areas?parentCode=100000') return ok(provinces);
    if (url === '/api/v1/areas?parentCode=440000') return ok(guangdong);
    if (url === '/api/v1/regions?typeCode=REGIONAL_LIST') return ok([{ id: 'EAST', code: 'EAST', name: '华东大区', parentCode: '' }]);
    if (url === '/api/v1/regions?typeCode=OPERATING_CITY&parentCode=EAST') return ok([{ id: '', code: '320100', name: '南京市', parentCode: 'EAST' }]);
    return Promise.resolve(new Response(JSON.stringify({ code: 4004, msg: 'none', data: null })));
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('area api mapping', () => {
  it('maps a GB/T 2260 area to a picker entry whose id is its code', () => {
    expect(areaOf({ code: '440300', parentCode: '440000', name: '深圳市', level: 2 })).toEqual({ code: '440300', id: '440300', name: '深圳市' });
  });

  it('maps a region keeping its id, falling back to the code', () => {
    expect(regionOf({ id: 'r-1', code: 'EAST', name: '华东大区', parentCode: '' })).toEqual({ code: 'EAST', id: 'r-1', name: '华东大区' });
    expect(regionOf({ id: '', code: '320100', name: '南京市', parentCode: 'EAST' })).toEqual({ code: '320100', id: '320100', name: '南京市' });
  });

  it('asks /areas for provinces under 100000 and cities under the province', async () => {
    const source = createApiAreaSource(new QueryClient());
    expect(await source.provinces()).toEqual([
      { code: '310000', id: '310000', name: '上海市' },
      { code: '440000', id: '440000', name: '广东省' },
    ]);
    expect(await source.cities('440000')).toEqual([
      { code: '440100', id: '440100', name: '广州市' },
      { code: '440300', id: '440300', name: '深圳市' },
    ]);
  });

  it('asks /regions for the regions and for a region’s operating cities', async () => {
    const source = createApiAreaSource(new QueryClient());
    expect(await source.regions()).toEqual([{ code: 'EAST', id: 'EAST', name: '华东大区' }]);
    expect(await source.regionCities('EAST')).toEqual([{ code: '320100', id: '320100', name: '南京市' }]);
  });

  it('caches each list: a second look-up makes no call', async () => {
    const source = createApiAreaSource(new QueryClient());
    await source.cities('440000');
    await source.cities('440000');
    await source.provinces();
    await source.provinces();
    expect(urls()).toEqual(['/api/v1/areas?parentCode=440000', '/api/v1/areas?parentCode=100000']);
  });

  it('fails silently (no toast) so the picker shows an empty list', async () => {
    const source = createApiAreaSource(new QueryClient());
    await expect(source.cities('999999')).rejects.toThrow();
    expect(notify.toastError).not.toHaveBeenCalled();
  });

  it('feeds the province/city picker: choosing a province loads its cities from the gateway', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={createApiAreaSource(new QueryClient())} onChange={onChange} />);
    await userEvent.click(screen.getByLabelText('请选择省份'));
    await userEvent.click(await screen.findByTitle('广东省'));
    await userEvent.click(screen.getByLabelText('请选择城市'));
    await userEvent.click(await screen.findByTitle('深圳市'));
    expect(onChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ provinceCode: '440000', provinceId: '440000', provinceName: '广东省', cityCode: '440300', cityId: '440300', cityName: '深圳市', city_value: '440300' }),
    );
    expect(urls()).toContain('/api/v1/areas?parentCode=440000');
  });

  it('keeps the whole-country option local: 全国 asks the gateway for no cities', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={createApiAreaSource(new QueryClient())} wholeCountry onChange={onChange} />);
    await userEvent.click(screen.getByLabelText('请选择省份'));
    await userEvent.click(await screen.findByTitle('全国'));
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: '-1', cityCode: '-1', cityId: '-1', cityName: '全国' }));
    expect(urls().filter((u) => u.includes('parentCode=-1'))).toHaveLength(0);
  });
});
