// The sign-in page: tabs, validation texts and the redirect rules of console spec §2/§5.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launch, newPage, screenshot } from './support.mjs';

describe('sign-in page', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('opens on the workplace-chat QR tab with a 250×300 frame and is titled 车管家', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    const qrTab = page.getByRole('tab', { name: '企业微信扫码' });
    assert.equal(await qrTab.getAttribute('aria-selected'), 'true');
    const frame = await page.getByTestId('qr-frame').boundingBox();
    assert.equal(Math.round(frame.width), 250);
    assert.equal(Math.round(frame.height), 300);
    assert.match(await page.title(), /车管家/);
    await page.getByRole('tab', { name: '手机号登录' }).waitFor();
    await page.getByRole('tab', { name: '账号登录' }).waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'sign-in');
    await context.close();
  });

  it('shows both required texts when the account form is submitted empty', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('tab', { name: '账号登录' }).click();
    await page.getByRole('button', { name: /登\s*录/ }).click();
    await page.getByText('请输入账号', { exact: true }).and(page.locator('.ant-form-item-explain-error')).waitFor();
    await page.getByText('请输入密码', { exact: true }).and(page.locator('.ant-form-item-explain-error')).waitFor();
    await screenshot(page, 'sign-in-account-errors');
    await context.close();
  });

  it('rejects an invalid phone and enables sending only for a valid one', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('tab', { name: '手机号登录' }).click();
    const phone = page.getByPlaceholder('请输入手机号');
    const send = page.getByRole('button', { name: '发送', exact: true });
    await phone.fill('2345');
    await page.getByText('请输入正确的手机号').waitFor();
    assert.equal(await send.isDisabled(), true);
    await phone.fill(' 13800138000 ');
    assert.equal(await phone.inputValue(), '13800138000', 'input is trimmed while typing');
    await page.getByText('请输入正确的手机号').waitFor({ state: 'detached' });
    assert.equal(await send.isEnabled(), true);
    await page.getByPlaceholder('请输入验证码').press('Enter');
    await page.getByText('请输入验证码', { exact: true }).and(page.locator('.ant-form-item-explain-error')).waitFor();
    await context.close();
  });

  it('sends a visitor without a session to /login, keeping a detail link parameter', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/carManagement/assetsData/carFiles?tDeliveryCode=TD123&other=x');
    await page.waitForURL('**/login?tDeliveryCode=TD123');
    await context.close();
  });
});
