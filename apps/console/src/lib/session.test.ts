import { afterEach } from 'vitest';
import { getCookie } from './cookies';
import { clearSession, rememberExpireAuthPath, saveSession, sessionToken, takeExpireAuthPath } from './session';

describe('session items (console spec §3/§4)', () => {
  afterEach(() => {
    clearSession();
    localStorage.clear();
  });

  it('sends the enterprise token first, else the personal one', () => {
    saveSession('p1', 'personal');
    expect(sessionToken()).toBe('p1');
    saveSession('e1', 'enterprise');
    expect(sessionToken()).toBe('e1');
    expect(getCookie('personalToken')).toBe('p1');
  });

  it('drops an old enterprise session when a new personal one arrives', () => {
    saveSession('e-old', 'enterprise');
    saveSession('p2', 'personal');
    expect(getCookie('enterpriseToken')).toBeUndefined();
    expect(sessionToken()).toBe('p2');
  });

  it('remembers a page to reopen once, but not sign-in pages or the workbench', () => {
    for (const path of ['/', '/login', '/login?code=1', '/selectNet', '/dashboard', '/redirect/x', '/404', 'http://evil.test/x']) {
      rememberExpireAuthPath(path);
      expect(takeExpireAuthPath(), path).toBeUndefined();
    }
    rememberExpireAuthPath('/financialManagement/billDashboard?month=2026-10');
    expect(takeExpireAuthPath()).toBe('/financialManagement/billDashboard?month=2026-10');
    expect(takeExpireAuthPath()).toBeUndefined();
  });

  it('keeps the page to reopen through clearing the session', () => {
    rememberExpireAuthPath('/notice');
    clearSession();
    expect(takeExpireAuthPath()).toBe('/notice');
  });
});
