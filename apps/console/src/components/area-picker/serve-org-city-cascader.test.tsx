import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, vi } from 'vitest';
import { FilterBar } from '@/components/filter-bar/filter-bar';
import * as notify from '@/lib/notify';
import { renderWithProviders } from '@/testing/render';
import { choiceOf, pathOf, serveOrgCityKeyOf, serveOrgCityOptions, serveOrgCityText, type ServeOrgBody } from './serve-org-api';
import { ServeOrgCityCascader, ServeOrgCityField } from './serve-org-city-cascader';

const guangzhou = { provinceCode: '440000', provinceName: '广东省', cityCode: '440100', cityName: '广州市' };
const shenzhen = { provinceCode: '440000', provinceName: '广东省', cityCode: '440300', cityName: '深圳市' };
const shanghai = { provinceCode: '310000', provinceName: '上海市', cityCode: '310000', cityName: '上海市' };

/** 演示物流 (serves nothing itself) ─┬─ 华南大区 (广州, 深圳) ── 深圳运营中心 (深圳)
 *                                   └─ 上海运营中心 (上海) */
const tree: ServeOrgBody[] = [
  {
    id: 'root',
    orgCode: 'A00',
    name: '演示物流',
    parentId: '',
    level: 1,
    areas: [],
    childs: [
      {
        id: 'south',
        orgCode: 'A02',
        name: '华南大区',
        parentId: 'root',
        level: 2,
        areas: [guangzhou, shenzhen],
        childs: [{ id: 'sz', orgCode: 'A0202', name: '深圳运营中心', parentId: 'south', level: 3, areas: [shenzhen] }],
      },
      { id: 'sh', orgCode: 'A0101', name: '上海运营中心', parentId: 'root', level: 3, areas: [shanghai] },
    ],
  },
];

const TREE_URL = '/api/v1/serve-orgs/tree';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
let fetchMock: ReturnType<typeof vi.fn>;
const urls = () => fetchMock.mock.calls.map(([url]) => String(url));
const answer = (reply: () => Promise<Response>) => {
  fetchMock = vi.fn((url: string) => (url === TREE_URL ? reply() : Promise.resolve(new Response(JSON.stringify({ code: 4004, msg: 'none', data: null })))));
  vi.stubGlobal('fetch', fetchMock);
};

beforeEach(() => {
  answer(() => ok(tree));
  vi.spyOn(notify, 'toastError').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const open = () => userEvent.click(screen.getByRole('combobox'));
async function choose(...labels: string[]) {
  await open();
  // A city two units serve shows in both their menus: the newest menu is the last.
  for (const label of labels) await userEvent.click((await screen.findAllByTitle(label)).at(-1) as HTMLElement);
}

describe('serve organisation options', () => {
  it('put each organisation’s own cities first, then the serving units below it', () => {
    const [root] = serveOrgCityOptions(tree);
    expect(root.children?.map((o) => o.label)).toEqual(['华南大区', '上海运营中心']);
    expect(root.children?.[0].children?.map((o) => o.label)).toEqual(['广州市', '深圳市', '深圳运营中心']);
  });

  it('disable an organisation with neither cities nor units below', () => {
    const [bare] = serveOrgCityOptions([{ id: 'x', orgCode: 'X', name: '空组织', parentId: '', level: 1, areas: [] }]);
    expect(bare.disabled).toBe(true);
  });

  it('turn a choice into its path and a path back into the choice', () => {
    const choice = { orgId: 'sz', orgName: '深圳运营中心', orgCode: 'A0202', ...shenzhen };
    expect(pathOf(tree, choice)).toEqual(['org:root', 'org:south', 'org:sz', 'city:440300']);
    expect(pathOf(tree, { ...choice, cityCode: '440100' })).toBeUndefined();
    const [root] = serveOrgCityOptions(tree);
    const south = root.children?.[0];
    const city = south?.children?.[1];
    expect(choiceOf(root && south && city ? [root, south, city] : [])).toEqual({ orgId: 'south', orgName: '华南大区', orgCode: 'A02', ...shenzhen });
    expect(choiceOf(root && south ? [root, south] : [])).toBeUndefined();
  });
});

describe('service-organisation city cascader (console spec §2)', () => {
  it('loads the serve organisation tree and emits the city with the organisation serving it', async () => {
    const onChange = vi.fn();
    renderWithProviders(<ServeOrgCityCascader onChange={onChange} />);
    expect(await screen.findByText('请选择服务组织/城市')).toBeInTheDocument();
    await choose('演示物流', '华南大区', '深圳运营中心', '深圳市');
    expect(onChange).toHaveBeenLastCalledWith({ orgId: 'sz', orgName: '深圳运营中心', orgCode: 'A0202', ...shenzhen });
    expect(urls()).toEqual([TREE_URL]);
  });

  it('shows a value as its path', async () => {
    renderWithProviders(<ServeOrgCityCascader value={{ orgId: 'sh', cityCode: shanghai.cityCode }} />);
    expect(await screen.findByText('演示物流 / 上海运营中心 / 上海市')).toBeInTheDocument();
  });

  it('says it is loading until the tree arrives', async () => {
    answer(() => new Promise<Response>(() => undefined));
    renderWithProviders(<ServeOrgCityCascader />);
    expect(screen.getByText('服务组织加载中...')).toBeInTheDocument();
    await open();
    expect(await screen.findByLabelText('服务组织加载中...')).toBeInTheDocument();
  });

  it('shows 暂无服务组织 when the user reaches no serve organisation', async () => {
    answer(() => ok([]));
    renderWithProviders(<ServeOrgCityCascader />);
    await waitFor(() => expect(screen.getByText('请选择服务组织/城市')).toBeInTheDocument());
    await open();
    expect(await screen.findByText('暂无服务组织')).toBeInTheDocument();
  });

  it('fails silently into the empty state (console spec §8)', async () => {
    answer(() => Promise.resolve(new Response(JSON.stringify({ code: 5000, msg: '服务异常', data: null }), { status: 500 })));
    renderWithProviders(<ServeOrgCityCascader />);
    await waitFor(() => expect(screen.getByText('请选择服务组织/城市')).toBeInTheDocument());
    await open();
    expect(await screen.findByText('暂无服务组织')).toBeInTheDocument();
    expect(notify.toastError).not.toHaveBeenCalled();
  });

  it('serves as a filter-bar field whose search value is the choice as URL text', async () => {
    const onSearch = vi.fn();
    renderWithProviders(<FilterBar fields={[{ prop: 'serveCity', label: '服务城市', type: ServeOrgCityField }]} onSearch={onSearch} searchOnInit={false} />);
    await screen.findByText('请选择服务组织/城市');
    await choose('演示物流', '华南大区', '广州市');
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith({ serveCity: `south:${guangzhou.cityCode}` }));
  });

  it('shows the choice a URL text names, and reads only well-formed texts', async () => {
    expect(serveOrgCityKeyOf(serveOrgCityText({ orgId: 'sz', cityCode: '440300' }))).toEqual({ orgId: 'sz', cityCode: '440300' });
    for (const bad of ['', 'sz', 'sz:', ':440300', 'a:b:c', 42, undefined]) expect(serveOrgCityKeyOf(bad)).toBeUndefined();
    renderWithProviders(<FilterBar fields={[{ prop: 'serveCity', label: '服务城市', type: ServeOrgCityField, initValue: 'sz:440300' }]} onSearch={vi.fn()} searchOnInit={false} />);
    await waitFor(() => expect(screen.getByText('演示物流 / 华南大区 / 深圳运营中心 / 深圳市')).toBeInTheDocument());
  });
});
