import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { renderWithProviders } from '@/testing/render';
import { pageTitle } from '@/components/use-page-title';
import { loginRedirect, PublicOnly, RequireSession } from './guards';

describe('guards (spec §2/§4)', () => {
  afterEach(() => {
    document.cookie = 'enterpriseToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it('keeps tDeliveryCode or fixedLossCode on the way to /login', () => {
    expect(loginRedirect('?tDeliveryCode=T1&x=1')).toBe('/login?tDeliveryCode=T1');
    expect(loginRedirect('?fixedLossCode=F2')).toBe('/login?fixedLossCode=F2');
    expect(loginRedirect('')).toBe('/login');
  });

  it('sends a visitor without a session to /login', () => {
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/dashboard" element={<div>secret</div>} />
        </Route>
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>,
      { route: '/dashboard' },
    );
    expect(screen.getByText('sign in')).toBeInTheDocument();
  });

  it('sends /login with a session to /dashboard', () => {
    document.cookie = 'enterpriseToken=abc; path=/';
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<PublicOnly><div>sign in</div></PublicOnly>} />
        <Route path="/dashboard" element={<div>workbench</div>} />
      </Routes>,
      { route: '/login' },
    );
    expect(screen.getByText('workbench')).toBeInTheDocument();
  });

  it('titles pages from route meta, defaulting to 车管家', () => {
    expect(pageTitle(undefined)).toBe('车管家');
    expect(pageTitle('组织管理')).toBe('组织管理 - 车管家');
  });
});
