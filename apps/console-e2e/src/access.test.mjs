// Permission-driven menu and guards, and session expiry (console spec §2/§4/§6).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE_URL, launch, newPage, sessionToken, signIn } from './support.mjs';

describe('access', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('hides System settings from a user without oss:pc:system:settings and answers /401 for its URL', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo_ops');
    const nav = page.getByTestId('nav-groups');
    await nav.getByText('车辆管理', { exact: true }).waitFor();
    assert.equal(await nav.getByText('系统设置', { exact: true }).count(), 0);
    await page.goto('/systemSetting/orgManagement');
    await page.waitForURL('**/401');
    await page.getByText('抱歉，您没有访问该页面的权限').waitFor();
    await context.close();
  });

  it('switches to mobile mode below 1024 px: no sidebar, menu in a drawer', async () => {
    const { context, page } = await newPage(browser, { viewport: { width: 900, height: 800 } });
    await signIn(page, 'demo', { at: '/systemSetting/orgManagement' });
    await page.getByTestId('org-management').waitFor();
    assert.equal(await page.getByTestId('nav-groups').count(), 0);
    assert.equal(await page.getByTestId('sidebar').count(), 0);
    await page.getByRole('button', { name: '菜单' }).click();
    const drawer = page.locator('.ant-drawer');
    await drawer.getByText('车辆管理').waitFor();
    await drawer.getByText('系统设置').waitFor();
    await context.close();
  });

  it('sends the user to /login once the session is revoked server-side', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    assert.ok(token, 'session cookie set');
    const res = await fetch(`${BASE_URL}/api/v1/auth/logout`, { method: 'POST', headers: { token, platformId: '1', 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200);
    await page.reload();
    await page.waitForURL('**/login', { timeout: 10_000 });
    assert.equal(await sessionToken(context), undefined, 'session cookie cleared');
    await context.close();
  });
});
