// ID-card expiry warnings in the browser (issue 21): the daily job has warned
// of the demo drivers' ID cards ending within 30 days (the seed gives a few),
// the warning page filters them by type, and the driver they name is edited
// to a long-term card (长期), which the detail then shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, toast, until } from './support.mjs';

describe('ID-card expiry warnings', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('lists an expiring ID card under its type and makes the driver’s card long-term', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    // The job runs as the stack starts, after the seed.
    // One whose driver's name no other driver has, to find it by name.
    const warning = await until('an ID-card warning', async () => {
      const answer = await callApi('GET', '/api/v1/risk/warnings?warningTypes=ID_CARD_EXPIRING&page=1&size=50', { token });
      for (const w of answer.data?.list ?? []) {
        if (w.title !== '身份证即将到期' || !w.driverName) continue;
        const drivers = await callApi('GET', `/api/v1/drivers?name=${encodeURIComponent(w.driverName)}&page=1&size=10`, { token });
        if (drivers.data?.list?.length === 1) return w;
      }
      return undefined;
    });

    await page.goto('/carManagement/riskControll/warnRecord?warningTypes=ID_CARD_EXPIRING');
    const list = page.getByTestId('warn-list');
    const row = list.locator('tr', { hasText: warning.content });
    await row.getByText('身份证到期').waitFor();
    await row.getByText('身份证即将到期').waitFor();
    await screenshot(page, 'id-card-warnings');

    await page.goto(`/carManagement/assetsData/driverManagement?name=${encodeURIComponent(warning.driverName)}`);
    await page.getByTestId('driver-name').filter({ hasText: warning.driverName }).first().click();
    const detail = page.getByTestId('driver-detail');
    const end = detail.locator('th', { hasText: '身份证有效期至' }).locator('xpath=following-sibling::td[1]');
    assert.match((await end.innerText()).trim(), /^\d{4}-\d{2}-\d{2}$/);
    await page.getByTestId('driver-detail-edit').click();
    const form = page.getByTestId('driver-form');
    await form.getByTestId('driver-id-card-long-term').click();
    assert.equal(await form.getByLabel('身份证有效期至').isDisabled(), true);
    await page.locator('.ant-modal:visible').getByRole('button', { name: /提\s*交/ }).click();
    await toast(page, '司机已保存').waitFor();
    // Editing closed the detail; opened again it reads the new card.
    await page.getByTestId('driver-name').filter({ hasText: warning.driverName }).first().click();
    await until('the detail reads 长期', async () => (await end.innerText()).trim() === '长期');
    await screenshot(page, 'driver-id-card-long-term');
    await context.close();
  });
});
