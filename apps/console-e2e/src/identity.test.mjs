// Identity in the browser (issue 4): phone-code and WeCom QR sign-in end to end,
// the enterprise choice of a two-enterprise member, enterprise switch, password
// change, login log and the expired-auth path (console spec §1/§4/§5/§7).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE_URL, callApi, launch, newPage, PASSWORD, screenshot, sessionToken, signIn, smsOutbox, toast, waitForSmsCode } from './support.mjs';

const ENTERPRISE_A = '演示物流有限公司';
const ENTERPRISE_B = '示例冷链科技有限公司';

/** The user menu opened from the avatar. */
async function openUserMenu(page) {
  await page.getByTestId('avatar').hover();
  const menu = page.getByTestId('user-menu');
  await menu.waitFor();
  return menu;
}

async function signInAsMulti(page) {
  await page.goto('/login');
  await page.getByRole('tab', { name: '账号登录' }).click();
  await page.getByPlaceholder('请输入账号').fill('demo_multi');
  await page.getByPlaceholder('请输入密码').fill(PASSWORD);
  await page.getByPlaceholder('请输入密码').press('Enter');
  await page.waitForURL('**/selectNet');
}

describe('identity', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('signs in with a phone and the SMS code from the dev sender; a second send waits (4029)', async () => {
    const phone = '13800000002'; // demo_ops
    const before = await smsOutbox(phone);
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('tab', { name: '手机号登录' }).click();
    await page.getByPlaceholder('请输入手机号').fill(phone);
    await page.getByRole('button', { name: '发送', exact: true }).click();
    const countdown = page.getByRole('button', { name: /重新发送\(\d+\)/ });
    await countdown.waitFor();
    assert.equal(await countdown.isDisabled(), true, 'locked while counting down');
    const code = await waitForSmsCode(phone, before);
    assert.match(code, /^\d{6}$/);

    // Another browser asking for the same phone within 60 s is told to wait.
    const other = await newPage(browser);
    await other.page.goto('/login');
    await other.page.getByRole('tab', { name: '手机号登录' }).click();
    await other.page.getByPlaceholder('请输入手机号').fill(phone);
    await other.page.getByRole('button', { name: '发送', exact: true }).click();
    await toast(other.page, /秒后再试/).waitFor();
    const wait = other.page.getByRole('button', { name: /重新发送\(\d+\)/ });
    await wait.waitFor();
    const seconds = Number((await wait.textContent()).match(/\d+/)[0]);
    assert.ok(seconds > 0 && seconds <= 60, `waits the server's ${seconds} s`);
    await other.context.close();

    await page.getByPlaceholder('请输入验证码').fill(code);
    await page.getByPlaceholder('请输入验证码').press('Enter');
    await page.waitForURL('**/dashboard');
    await page.getByTestId('workbench').waitFor();
    assert.equal(await page.locator('.fd-nav__username').textContent(), '运营专员');
    await context.close();
  });

  it('signs in through the WeCom QR frame (local stand-in) with a fresh state per frame', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    const iframe = page.getByTestId('qr-iframe');
    const firstSrc = await iframe.getAttribute('src');
    assert.match(firstSrc, /[?&]state=[^&]+/);
    const frame = iframe.contentFrame();
    await frame.locator('a[data-userid="lisi"]').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'sign-in-qr');

    await page.getByTestId('qr-refresh').click();
    await page.waitForFunction((old) => document.querySelector('[data-testid="qr-iframe"]')?.getAttribute('src') !== old, firstSrc);
    await frame.locator('a[data-userid="lisi"]').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('workbench').waitFor();
    assert.equal(await page.locator('.fd-nav__username').textContent(), '运营专员');
    await context.close();
  });

  it('refuses a replayed WeCom return and shows a fresh QR frame', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login?code=replayed-code&state=not-issued');
    await page.getByTestId('qr-iframe').waitFor();
    assert.equal(new URL(page.url()).search, '', 'code and state are dropped');
    assert.equal(await sessionToken(context), undefined);
    await context.close();
  });

  it('takes a two-enterprise member (WeCom) through /selectNet to the chosen enterprise', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByTestId('qr-iframe').contentFrame().locator('a[data-userid="zhaoliu"]').click();
    await page.waitForURL('**/selectNet');
    const list = page.getByTestId('enterprise-list');
    await list.getByText(ENTERPRISE_A).waitFor();
    await list.getByText(ENTERPRISE_B).waitFor();
    await screenshot(page, 'select-net');
    await list.getByText(ENTERPRISE_B).click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('workbench').waitFor();
    const menu = await openUserMenu(page);
    await menu.getByText(ENTERPRISE_B).waitFor();
    await context.close();
  });

  it('switches enterprise from the user menu', async () => {
    const { context, page } = await newPage(browser);
    await signInAsMulti(page);
    await page.getByTestId('enterprise-list').getByText(ENTERPRISE_A).click();
    await page.waitForURL('**/dashboard');
    const first = await sessionToken(context);
    let menu = await openUserMenu(page);
    await menu.getByText(ENTERPRISE_A).waitFor();
    await menu.getByTestId('switch-enterprise').click();
    const dialog = page.locator('.ant-modal').filter({ hasText: '切换企业' });
    await dialog.getByText('当前').waitFor();
    await dialog.getByText(ENTERPRISE_B).click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('workbench').waitFor();
    menu = await openUserMenu(page);
    await menu.getByText(ENTERPRISE_B).waitFor();
    const second = await sessionToken(context);
    assert.notEqual(second, first, 'a new enterprise session');
    const old = await callApi('GET', '/api/v1/me', { token: first });
    assert.equal(old.code, 1001, 'the previous enterprise session ended');
    await context.close();
  });

  it('changes the password and stays signed in; then changes it back', async () => {
    const temporary = 'Temp@2026xy';
    const { context, page } = await newPage(browser);
    await signInAsMulti(page);
    await page.getByTestId('enterprise-list').getByText(ENTERPRISE_A).click();
    await page.waitForURL('**/dashboard');
    const change = async (from, to) => {
      const menu = await openUserMenu(page);
      await menu.getByTestId('change-password').click();
      const dialog = page.locator('.ant-modal').filter({ hasText: '修改密码' });
      await dialog.getByLabel('旧密码').fill(from);
      await dialog.getByLabel('新密码', { exact: true }).fill(to);
      await dialog.getByLabel('确认新密码').fill(to);
      await dialog.getByRole('button', { name: /提\s*交/ }).click();
      await toast(page, '修改密码成功').waitFor();
      await dialog.waitFor({ state: 'hidden' });
    };
    let restored = false;
    try {
      // The texts of console spec §5 first.
      const menu = await openUserMenu(page);
      await menu.getByTestId('change-password').click();
      const dialog = page.locator('.ant-modal').filter({ hasText: '修改密码' });
      await dialog.getByLabel('新密码', { exact: true }).fill('short');
      await dialog.getByLabel('确认新密码').fill('different1');
      await dialog.getByLabel('旧密码').click();
      await dialog.getByText('长度在 8 到 20 个字符').waitFor();
      await dialog.getByText('两次输入密码不一致!').waitFor();
      await dialog.getByRole('button', { name: /取\s*消/ }).click();
      await dialog.waitFor({ state: 'hidden' });

      await change(PASSWORD, temporary);
      await page.reload();
      await page.getByTestId('workbench').waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard', 'still signed in');
      const withNew = await callApi('POST', '/api/v1/auth/login', { body: { loginType: 1, username: 'demo_multi', password: temporary } });
      assert.equal(withNew.code, 200, 'the new password signs in');
      await callApi('POST', '/api/v1/auth/logout', { token: withNew.data.token });

      await page.waitForTimeout(1600); // the dialog's confirm debounce
      await change(temporary, PASSWORD);
      restored = true;
    } finally {
      if (!restored) {
        // Leave the shared demo account as it was for the other tests.
        const signedIn = await callApi('POST', '/api/v1/auth/login', { body: { loginType: 1, username: 'demo_multi', password: temporary } });
        if (signedIn.code === 200) {
          await callApi('POST', '/api/v1/auth/password', { token: signedIn.data.token, body: { oldPassword: temporary, newPassword: PASSWORD, confirmNewPaw: PASSWORD } });
        }
      }
      await context.close();
    }
  });

  it('resets a forgotten password with a phone code from the sign-in page', async () => {
    const phone = '13800000003'; // demo2; reset to the password it has, so nothing else changes
    const before = await smsOutbox(phone);
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('tab', { name: '账号登录' }).click();
    await page.getByRole('button', { name: '忘记密码？' }).click();
    const dialog = page.locator('.ant-modal').filter({ hasText: '通过手机号重置密码' });
    await dialog.getByPlaceholder('请输入手机号').fill(phone);
    await dialog.getByRole('button', { name: '发送', exact: true }).click();
    await dialog.getByRole('button', { name: /重新发送\(\d+\)/ }).waitFor();
    await dialog.getByPlaceholder('请输入验证码').fill(await waitForSmsCode(phone, before));
    await dialog.getByLabel('新密码', { exact: true }).fill(PASSWORD);
    await dialog.getByLabel('确认新密码').fill(PASSWORD);
    await screenshot(page, 'reset-password');
    await dialog.getByRole('button', { name: /提\s*交/ }).click();
    await toast(page, '密码已重置，请使用新密码登录').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByPlaceholder('请输入账号').fill('demo2');
    await page.getByPlaceholder('请输入密码').fill(PASSWORD);
    await page.getByPlaceholder('请输入密码').press('Enter');
    await page.waitForURL('**/dashboard');
    await context.close();
  });

  it('lists sign-in attempts on the login log page, filtered by account and result', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/systemSetting/loginLog' });
    const log = page.getByTestId('login-log');
    await log.locator('.ant-table-row').first().waitFor();
    await log.getByText(/共\s*\d+\s*条/).waitFor();
    const filter = page.getByTestId('filter-bar');
    await filter.getByPlaceholder('账号或手机号').fill('demo_multi');
    await filter.locator('.ant-select').nth(1).click();
    await page.locator('.ant-select-dropdown:visible').getByText('成功', { exact: true }).click();
    await filter.getByRole('button', { name: /查\s*询/ }).click();
    await page.waitForFunction(() => {
      const cells = [...document.querySelectorAll('[data-testid="login-log"] .ant-table-row td:nth-child(3)')];
      return cells.length > 0 && cells.every((c) => c.textContent === 'demo_multi');
    });
    const results = await log.locator('.ant-table-row .ant-tag').allTextContents();
    assert.ok(results.length > 0 && results.every((r) => r === '成功'));
    await screenshot(page, 'login-log');
    await context.close();
  });

  it('keeps the login log from a user without system settings', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo_ops', { at: '/systemSetting/loginLog' });
    await page.waitForURL('**/401');
    await context.close();
  });

  it('reopens the page an expired session was on after the next sign-in', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/systemSetting/loginLog' });
    await page.getByTestId('login-log').waitFor();
    const token = await sessionToken(context);
    const res = await fetch(`${BASE_URL}/api/v1/auth/logout`, { method: 'POST', headers: { token, platformId: '1', 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200);
    await page.reload();
    await page.waitForURL('**/login', { timeout: 10_000 });
    const popup = context.waitForEvent('page');
    await page.getByRole('tab', { name: '账号登录' }).click();
    await page.getByPlaceholder('请输入账号').fill('demo');
    await page.getByPlaceholder('请输入密码').fill(PASSWORD);
    await page.getByPlaceholder('请输入密码').press('Enter');
    await page.waitForURL('**/dashboard');
    const reopened = await popup;
    await reopened.waitForURL('**/systemSetting/loginLog');
    await reopened.getByTestId('login-log').waitFor();
    await context.close();
  });
});
