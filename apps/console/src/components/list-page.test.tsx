import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App as AntApp, ConfigProvider } from 'antd';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import type { ListFilters } from '@/lib/list-url';
import type { FilterField } from './filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from './list-page';

interface Car {
  id: string;
  plate: string;
}

const fields: FilterField[] = [
  { prop: 'plate', label: '车牌号', type: 'batchInput' },
  { prop: 'vin', label: '车架号', type: 'input' },
];
const columns: ListColumn<Car>[] = [
  { prop: 'plate', label: '车牌号' },
  { key: 'actions', label: '操作', render: (row) => <span>open {row.id}</span> },
];

interface Query {
  plate: string[];
  vin: string;
  page: number;
  size: number;
}
const toQuery = (filters: ListFilters, page: number, size: number): Query => ({
  plate: ([] as string[]).concat(filters.plate ?? []),
  vin: typeof filters.vin === 'string' ? filters.vin : '',
  page,
  size,
});

function Cars({ fetch }: { fetch: (q: Query) => Promise<{ list: Car[]; total: number }> }) {
  const list = useListPage<Car, Query>({ fields, queryKey: ['test', 'cars'], toQuery, fetch });
  return <ListPage<Car> testId="cars" {...list.listProps} table={{ rowKey: 'id', columns, ...list.tableProps }} />;
}

function mount(entry: string) {
  const fetch = vi.fn(async (q: Query) => ({ list: [{ id: `p${q.page}`, plate: q.plate.join('|') || 'none' }], total: 120 }));
  const router = createMemoryRouter([{ path: '/cars', element: <Cars fetch={fetch} /> }], { initialEntries: [entry] });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <I18nextProvider i18n={i18n}>
      <ConfigProvider theme={{ token: { motion: false } }}>
        <AntApp>
          <QueryClientProvider client={client}>
            <RouterProvider router={router} />
          </QueryClientProvider>
        </AntApp>
      </ConfigProvider>
    </I18nextProvider>,
  );
  const search = () => new URLSearchParams(router.state.location.search);
  return { fetch, router, search };
}

describe('useListPage (filters, page and size in the URL)', () => {
  it('loads the list a shared link describes and shows its filters in the bar', async () => {
    const { fetch } = mount('/cars?plate=沪A12345&plate=粤B66666&vin=LSV&page=2&size=50');
    await waitFor(() => expect(fetch).toHaveBeenCalledWith({ plate: ['沪A12345', '粤B66666'], vin: 'LSV', page: 2, size: 50 }));
    expect(await screen.findByDisplayValue('沪A12345,粤B66666')).toBeInTheDocument();
    expect(screen.getByDisplayValue('LSV')).toBeInTheDocument();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('writes a search into the URL with repeated keys and starts again at page 1', async () => {
    const { fetch, search } = mount('/cars?page=3&size=10');
    await screen.findByText('open p3');
    await userEvent.type(screen.getAllByPlaceholderText('请输入')[0], '沪A1,沪A2');
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(search().getAll('plate')).toEqual(['沪A1', '沪A2']));
    expect(search().has('page')).toBe(false);
    expect(search().get('size')).toBe('10');
    await waitFor(() => expect(fetch).toHaveBeenLastCalledWith({ plate: ['沪A1', '沪A2'], vin: '', page: 1, size: 10 }));
  });

  it('restores the previous list on the back button, filters and page included', async () => {
    const { fetch, router, search } = mount('/cars?vin=OLD&page=2');
    await screen.findByText('open p2');
    const vin = screen.getByDisplayValue('OLD');
    await userEvent.clear(vin);
    await userEvent.type(vin, 'NEW');
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(search().get('vin')).toBe('NEW'));
    await screen.findByText('open p1');
    await act(() => router.navigate(-1));
    await waitFor(() => expect(search().toString()).toBe('vin=OLD&page=2'));
    expect(await screen.findByDisplayValue('OLD')).toBeInTheDocument();
    await screen.findByText('open p2');
    expect(fetch).toHaveBeenLastCalledWith({ plate: [], vin: 'OLD', page: 2, size: 20 });
  });

  it('reset clears the filters from the URL and lists page 1 again', async () => {
    const { search } = mount('/cars?vin=LSV&page=4');
    await screen.findByText('open p4');
    await userEvent.click(screen.getByRole('button', { name: /重\s*置/ }));
    await waitFor(() => expect(search().toString()).toBe(''));
    await screen.findByText('open p1');
    expect(screen.queryByDisplayValue('LSV')).not.toBeInTheDocument();
  });

  it('keeps its own list while another page is shown (a kept-alive tab)', async () => {
    const fetch = vi.fn(async (q: Query) => ({ list: [{ id: `p${q.page}`, plate: 'x' }], total: 1 }));
    const router = createMemoryRouter(
      [{ path: '/', element: <Cars fetch={fetch} />, children: [{ path: 'cars', element: null }, { path: 'detail', element: null }] }],
      { initialEntries: ['/cars?vin=KEEP&page=3'] },
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <I18nextProvider i18n={i18n}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </I18nextProvider>,
    );
    await screen.findByText('open p3');
    await act(() => router.navigate('/detail?id=42'));
    await new Promise((r) => setTimeout(r, 50));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(screen.getByDisplayValue('KEEP')).toBeInTheDocument();
  });

  it('refetches when the same search is made again instead of adding a history entry', async () => {
    const { fetch, router } = mount('/cars?vin=LSV');
    await screen.findByText('open p1');
    const before = router.state.historyAction;
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    expect(router.state.historyAction).toBe(before);
  });
});
