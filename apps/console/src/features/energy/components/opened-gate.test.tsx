import { screen } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import '../messages';
import { OpenedGate } from './opened-gate';

function serve(status: { state: string; blacklisted: boolean }) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const data = url.includes('/charging/open-status')
        ? status
        : { id: '1', name: 'x', roles: ['r'], flags: {}, permissions: [{ permissionValue: 'oss:pc:energy:management' }] };
      return new Response(JSON.stringify({ code: 200, msg: 'ok', data }));
    }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('the opened-account gate of the charging pages', () => {
  it('shows the page to an opened account', async () => {
    serve({ state: 'OPENED', blacklisted: false });
    renderWithProviders(<OpenedGate>卡片列表</OpenedGate>);
    expect(await screen.findByText('卡片列表')).toBeInTheDocument();
  });

  it('closes charging for a blacklisted enterprise even with an opened account, and says why', async () => {
    serve({ state: 'OPENED', blacklisted: true });
    renderWithProviders(<OpenedGate>卡片列表</OpenedGate>);
    expect(await screen.findByTestId('charging-not-opened')).toBeInTheDocument();
    expect(await screen.findByText('贵企业暂不支持开通充电服务，如有疑问请联系客服')).toBeInTheDocument();
    expect(screen.queryByText('卡片列表')).toBeNull();
  });
});
