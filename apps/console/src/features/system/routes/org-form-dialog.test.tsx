import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { AreaSourceContext, type Area, type AreaSource } from '@/components/area-picker/area-source';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import type { OrgNode } from '../api/orgs';
import { citiesOfPaths, pathOfCity } from '../components/serve-area-field';
import { OrgFormDialog } from './org-form-dialog';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const area = (code: string, name: string): Area => ({ code, id: code, name });
const source: AreaSource = {
  provinces: () => Promise.resolve([area('110000', '北京市'), area('440000', '广东省')]),
  cities: (p) => Promise.resolve(p === '440000' ? [area('440100', '广州市'), area('440300', '深圳市')] : []),
  regions: () => Promise.resolve([]),
  regionCities: () => Promise.resolve([]),
};

const root: OrgNode = { id: 'root', orgCode: 'HQ', name: '总部', parentId: '', level: 1, sort: 0, status: 1, isCompany: true };
const south: OrgNode = { id: 'south', orgCode: 'S1', name: '华南', parentId: 'root', level: 2, sort: 0, status: 1, isCompany: false };

let fetchMock: ReturnType<typeof vi.fn>;
const sent = (method: string, url: string) =>
  fetchMock.mock.calls.filter(([u, init]) => u === url && (init as RequestInit | undefined)?.method === method).map(([, init]) => JSON.parse(String((init as RequestInit).body)));

beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/system/orgs/south/serve-areas' && init?.method !== 'PUT')
      return ok([{ provinceCode: '440000', provinceName: '广东省', cityCode: '440300', cityName: '深圳市' }]);
    if (url === '/api/v1/system/orgs/south' && init?.method === 'PUT') return ok(south);
    if (url === '/api/v1/system/orgs' && init?.method === 'POST') return ok({ ...south, id: 'new' });
    return ok([]);
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(notify, 'toastSuccess').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const renderDialog = (editing?: OrgNode) =>
  renderWithProviders(
    <AreaSourceContext.Provider value={source}>
      <OrgFormDialog open onClose={() => undefined} tree={[{ ...root, childs: [south] }]} editing={editing} />
    </AreaSourceContext.Provider>,
  );

describe('serve-area paths', () => {
  it('put a city under its province and a municipality alone, and come back as codes once each', () => {
    expect(pathOfCity('440300')).toEqual(['440000', '440300']);
    expect(pathOfCity('110000')).toEqual(['110000']);
    expect(citiesOfPaths([['440000', '440300'], ['110000'], ['440000', '440300']])).toEqual(['440300', '110000']);
  });
});

describe('organisation form: company and serve areas', () => {
  it('shows the cities an organisation serves by name and sends them back with the company flag', async () => {
    renderDialog(south);
    expect(await screen.findByText('深圳市')).toBeInTheDocument();
    const company = screen.getByTestId('org-is-company');
    expect(company).toHaveAttribute('aria-checked', 'false');
    fireEvent.click(company);
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(sent('PUT', '/api/v1/system/orgs/south/serve-areas')).toEqual([{ cityCodes: ['440300'] }]));
    expect(sent('PUT', '/api/v1/system/orgs/south')).toEqual([{ name: '华南', orgCode: 'S1', sort: 0, isCompany: true }]);
  });

  it('keeps the root a company: its switch is on and cannot be turned off', async () => {
    renderDialog(root);
    const company = await screen.findByTestId('org-is-company');
    expect(company).toHaveAttribute('aria-checked', 'true');
    expect(company).toBeDisabled();
    expect(screen.getByText('根组织即企业本身，始终是公司')).toBeInTheDocument();
  });

  it('adds an organisation without serve areas in one call', async () => {
    renderDialog();
    fireEvent.change(await screen.findByLabelText('组织名称'), { target: { value: '华西' } });
    fireEvent.change(screen.getByLabelText('组织编码'), { target: { value: 'W1' } });
    fireEvent.click(screen.getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(sent('POST', '/api/v1/system/orgs')).toEqual([{ name: '华西', orgCode: 'W1', sort: 0, isCompany: false, parentId: '' }]));
    expect(fetchMock.mock.calls.some(([u]) => String(u).endsWith('/serve-areas'))).toBe(false);
  });
});
