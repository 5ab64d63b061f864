import { screen } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { routeTree } from '@/config/routes';
import { flatten, resolveTree } from '@/lib/access';
import { renderWithProviders } from '@/testing/render';
import { DomainPage } from './domain-page';

const routeNamed = (name: string) => {
  const route = flatten(resolveTree(routeTree)).find((r) => r.name === name);
  if (!route) throw new Error(`no route ${name}`);
  return route;
};

/** A gateway with charging not opened for an enterprise that may see the energy menu. */
function stubGateway() {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const ok = (data: unknown) => new Response(JSON.stringify({ code: 200, msg: 'ok', data }));
      if (url.includes('/charging/open-status')) return ok({ state: 'NOT_OPENED', blacklisted: false });
      return ok({ id: 'u', name: 'x', roles: ['r'], flags: {}, permissions: [{ permissionValue: 'oss:pc:energy:management' }] });
    }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('routes bound to pages through the feature page tables', () => {
  it('shows 即将上线 under the route title for a route its feature has no page for', async () => {
    // Every route of the tree has its page now: a route no table lists stands in.
    const unbuilt = { ...routeNamed('billList'), name: 'notBuiltYet', fullPath: '/financialManagement/notBuiltYet' };
    renderWithProviders(<DomainPage route={unbuilt} />);
    expect(await screen.findByText('账单列表 即将上线', {}, { timeout: 10_000 })).toBeInTheDocument();
  });

  it('puts a charging page behind the opened-account gate', async () => {
    stubGateway();
    renderWithProviders(<DomainPage route={routeNamed('electricCard')} />);
    expect(await screen.findByTestId('charging-not-opened', {}, { timeout: 10_000 })).toBeInTheDocument();
  });
});
