import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import type { AreaSource } from './area-source';
import { ProvinceCityPicker } from './province-city-picker';
import { RegionPicker } from './region-picker';

const source = (): AreaSource => ({
  provinces: vi.fn(() => Promise.resolve([{ code: '310000', id: '31', name: '上海市' }, { code: '440000', id: '44', name: '广东省' }])),
  cities: vi.fn((code: string) => Promise.resolve(code === '440000' ? [{ code: '440100', id: '4401', name: '广州市' }, { code: '440300', id: '4403', name: '深圳市' }] : [{ code: '310100', id: '3101', name: '上海城区' }])),
  regions: vi.fn(() => Promise.resolve([{ code: 'R1', id: 'r1', name: '华东大区' }])),
  regionCities: vi.fn(() => Promise.resolve([{ code: '320100', id: '3201', name: '南京市' }, { code: '330100', id: '3301', name: '杭州市' }])),
});

async function choose(label: string, option: string) {
  await userEvent.click(screen.getByLabelText(label));
  await userEvent.click(await screen.findByTitle(option));
}

describe('province/city picker (console spec §4)', () => {
  it('shows 请选择省份 and 请选择城市', () => {
    renderWithProviders(<ProvinceCityPicker source={source()} />);
    expect(screen.getByText('请选择省份')).toBeInTheDocument();
    expect(screen.getByText('请选择城市')).toBeInTheDocument();
  });

  it('clears the city and reloads cities when a province is chosen, emitting the choice', async () => {
    const src = source();
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={src} onChange={onChange} />);
    await choose('请选择省份', '广东省');
    expect(src.cities).toHaveBeenCalledWith('440000');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: '440000', provinceName: '广东省', cityCode: undefined }));
    await choose('请选择城市', '深圳市');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: '440000', cityCode: '440300', cityName: '深圳市', cityId: '4403', city_value: '440300' }));
    await choose('请选择省份', '上海市');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: '310000', cityCode: undefined, cityName: undefined }));
  });

  it('gives 全国 (-1) a single auto-selected city 全国', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={source()} wholeCountry onChange={onChange} />);
    await choose('请选择省份', '全国');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: '-1', provinceId: '-1', cityCode: '-1', cityId: '-1', cityName: '全国' }));
  });

  it('selects the first province and city by default without emitting', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={source()} defaultFirst onChange={onChange} />);
    expect(await screen.findByTitle('上海市')).toBeInTheDocument();
    expect(await screen.findByTitle('上海城区')).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('follows a new value silently', async () => {
    const onChange = vi.fn();
    const src = source();
    const { rerender } = renderWithProviders(<ProvinceCityPicker source={src} onChange={onChange} />);
    rerender(<ProvinceCityPicker source={src} onChange={onChange} value={{ provinceCode: '440000', cityCode: '440100' }} />);
    expect(await screen.findByTitle('广州市')).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('debounces user changes by 500 ms when asked', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ProvinceCityPicker source={source()} debounce onChange={onChange} />);
    await choose('请选择省份', '广东省');
    expect(onChange).not.toHaveBeenCalled();
    await waitFor(() => expect(onChange).toHaveBeenCalledTimes(1), { timeout: 1000 });
  });

  it('clears city and names when the province is cleared', async () => {
    const onChange = vi.fn();
    const { container } = renderWithProviders(<ProvinceCityPicker source={source()} onChange={onChange} value={{ provinceCode: '440000', cityCode: '440100' }} />);
    await screen.findByTitle('广州市');
    const clear = container.querySelector('.ant-select-clear') as HTMLElement;
    await act(async () => {
      await userEvent.click(clear);
    });
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ provinceCode: undefined, provinceName: undefined, cityCode: undefined, cityName: undefined }));
  });
});

describe('region picker', () => {
  it('clears the city and emits when a region is chosen', async () => {
    const onChange = vi.fn();
    renderWithProviders(<RegionPicker source={source()} onChange={onChange} value={{ province: undefined }} />);
    expect(screen.getByText('请选择大区')).toBeInTheDocument();
    await choose('请选择大区', '华东大区');
    expect(onChange).toHaveBeenCalledWith({ province: 'R1', province_value: '华东大区', city: undefined, city_value: undefined });
  });

  it('loads the region cities and may select the first', async () => {
    const onChange = vi.fn();
    const src = source();
    renderWithProviders(<RegionPicker source={src} defaultFirstCity onChange={onChange} value={{ province: 'R1', province_value: '华东大区' }} />);
    await waitFor(() => expect(onChange).toHaveBeenCalledWith({ province: 'R1', province_value: '华东大区', city: '320100', city_value: '南京市' }));
    expect(src.regionCities).toHaveBeenCalledWith('R1');
  });
});
