import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import ChargeIntroducePage from './charge-introduce';

const latestApplication = {
  id: 'a1', enterpriseName: '演示物流', applicantName: '张三', applicantPhone: '', status: 'PENDING', applyTime: '2026-11-26T02:00:00Z',
  contactTime: '', decideTime: '', handlerName: '', rejectReason: '', remark: '', approveRemark: '',
};

function serve(status: object, permissions: string[]) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const data = url.includes('/charging/open-status')
        ? status
        : url.startsWith('/api/v1/charging/open-applications')
          ? { list: [latestApplication], total: 1 }
          : { id: '1', name: 'x', roles: ['r'], flags: {}, permissions: permissions.map((permissionValue) => ({ permissionValue })) };
      return new Response(JSON.stringify({ code: 200, msg: 'ok', data }));
    }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('the charging introduction page', () => {
  it('opens the application history once the enterprise has applied', async () => {
    serve({ state: 'APPLYING', blacklisted: false, latestApplication }, ['oss:pc:energy:management']);
    renderWithProviders(<ChargeIntroducePage />);
    fireEvent.click(await screen.findByTestId('open-applications'));
    const drawer = await screen.findByTestId('open-applications-drawer');
    expect(await within(drawer).findByText('张三')).toBeInTheDocument();
  });

  it('offers no history before any application', async () => {
    serve({ state: 'NOT_OPENED', blacklisted: false }, ['oss:pc:energy:management']);
    renderWithProviders(<ChargeIntroducePage />);
    await screen.findByText('未开通');
    expect(screen.queryByTestId('open-applications')).toBeNull();
  });
});
