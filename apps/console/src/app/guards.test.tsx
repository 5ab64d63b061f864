import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { renderWithProviders } from '@/testing/render';
import { pageTitle } from '@/components/use-page-title';
import { loginRedirect, PublicOnly, RequireAnySession, RequireSession } from './guards';

describe('guards (spec §2/§4)', () => {
  afterEach(() => {
    document.cookie = 'enterpriseToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    document.cookie = 'personalToken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    localStorage.removeItem('expireAuthPath');
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

  it('remembers the page asked for, to reopen after sign-in (expireAuthPath)', () => {
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/systemSetting/loginLog" element={<div>secret</div>} />
        </Route>
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>,
      { route: '/systemSetting/loginLog?principal=demo' },
    );
    expect(screen.getByText('sign in')).toBeInTheDocument();
    expect(localStorage.getItem('expireAuthPath')).toBe('/systemSetting/loginLog?principal=demo');
  });

  it('sends a personal session to /selectNet to choose its enterprise', () => {
    document.cookie = 'personalToken=p1; path=/';
    renderWithProviders(
      <Routes>
        <Route element={<RequireSession />}>
          <Route path="/dashboard" element={<div>secret</div>} />
        </Route>
        <Route path="/selectNet" element={<div>choose</div>} />
      </Routes>,
      { route: '/dashboard' },
    );
    expect(screen.getByText('choose')).toBeInTheDocument();
  });

  it('lets /selectNet through only with a session', () => {
    const tree = (
      <Routes>
        <Route path="/selectNet" element={<RequireAnySession><div>choose</div></RequireAnySession>} />
        <Route path="/login" element={<div>sign in</div>} />
      </Routes>
    );
    renderWithProviders(tree, { route: '/selectNet' });
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
