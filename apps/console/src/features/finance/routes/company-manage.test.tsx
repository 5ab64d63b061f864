import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import CompanyManagePage from './company-manage';
import { bodyOf, calls, me, ok } from './test-support';

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(false));
    if (url.startsWith('/api/v1/finance/invoice-titles?')) return ok({ list: [], total: 0 });
    if (url === '/api/v1/finance/invoice-titles' && init?.method === 'POST') return ok({ id: 't1' });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const fill = async (code: string) => {
  renderWithProviders(<CompanyManagePage />, { route: '/billCenter/invoiceManagement/companyManage' });
  fireEvent.click(await screen.findByTestId('title-add'));
  const dialog = (await screen.findAllByRole('dialog'))[0];
  const inputs = dialog.querySelectorAll('input[type="text"], input:not([type])');
  fireEvent.change(inputs[0], { target: { value: '演示物流有限公司' } });
  fireEvent.change(inputs[1], { target: { value: code } });
  fireEvent.click(screen.getByRole('button', { name: '提 交' }));
};

describe('invoice titles (companyManage)', () => {
  it('refuses a code of the wrong shape in the form', async () => {
    await fill('9144030071526726X');
    expect(await screen.findByText(/统一社会信用代码为18位/)).toBeInTheDocument();
    expect(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')).toHaveLength(0);
  });

  it('keeps a code that fails the check character only after a second confirmation', async () => {
    await fill('9144030071526726XA');
    expect((await screen.findAllByText('统一社会信用代码校验未通过')).length).toBeGreaterThan(0);
    expect(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')).toHaveLength(1));
    expect(bodyOf(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')[0])).toMatchObject({ taxNumber: '9144030071526726XA', titleType: 'COMPANY', name: '演示物流有限公司', taxNumberConfirmed: true });
  });

  it('saves a valid code at once', async () => {
    await fill('9144030071526726xg');
    await waitFor(() => expect(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')).toHaveLength(1));
    expect(bodyOf(calls(fetchMock, 'POST', '/api/v1/finance/invoice-titles')[0])).toMatchObject({ taxNumber: '9144030071526726XG', taxNumberConfirmed: false });
  });
});
