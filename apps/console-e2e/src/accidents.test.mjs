// Accidents in the browser (issue 21): a risk officer records an accident of a
// demo van with a photo through the shared upload control; the record lists,
// its detail links the photo through a signed link that gives it back, and
// the server holds it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Yesterday 10:30 as the date-time picker takes it (Beijing time). */
function yesterday() {
  const d = new Date(Date.now() + 8 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
  return `${d} 10:30:00`;
}

describe('accidents', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('records an accident with a photo and shows it in the detail', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/carManagement/riskControll/carAccidentRecord' });
    const token = await sessionToken(context);
    const list = page.getByTestId('accident-list');
    await list.getByTestId('accident-add').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: '新增事故' });
    await dialog.waitFor();

    // The van, picked by a search; the time; the severity.
    await dialog.getByTestId('accident-vehicle').click();
    await page.keyboard.type('粤');
    const option = page.locator('.ant-select-dropdown:visible .ant-select-item-option').first();
    await option.waitFor();
    await option.click();
    const time = dialog.getByLabel('事故时间');
    await time.click();
    await time.fill(yesterday());
    await time.press('Enter');
    await dialog.getByLabel('事故等级').click();
    await page.locator('.ant-select-dropdown:visible').getByText('仅财产损失').click();
    await dialog.getByLabel('事故地点').fill('深圳市南山区科技园北区路口');
    await dialog.getByLabel('事故经过').fill('倒车时与路桩轻微剐蹭，后保险杠受损');

    // The photo through the shared upload control.
    await dialog.locator('input[type=file]').first().setInputFiles({ name: 'scene.png', mimeType: 'image/png', buffer: PNG });
    await dialog.locator('.ant-upload-list-item-done, .ant-upload-list-item:not(.ant-upload-list-item-uploading)').first().waitFor();
    await screenshot(page, 'accident-form');
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/risk/accidents') && r.request().method() === 'POST');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const answer = await (await created).json();
    assert.equal(answer.code, 200, answer.msg);
    await dialog.waitFor({ state: 'hidden' });
    const accident = answer.data;
    assert.match(accident.caseNo, /^SG\d{8}\d{4}$/);
    assert.equal(accident.images.length, 1);

    // Listed, and its detail shows the photo.
    const row = list.locator('.ant-table-row').filter({ hasText: accident.caseNo });
    await row.waitFor();
    await row.getByTestId('accident-view').click();
    const detail = page.getByTestId('accident-detail');
    await detail.waitFor();
    const photo = detail.getByRole('link', { name: 'scene.png' });
    await photo.waitFor();
    await screenshot(page, 'accident-detail');
    // Its short-lived signed link gives the picture back.
    const link = await photo.getAttribute('href');
    const image = await page.request.get(link);
    assert.equal(image.status(), 200);
    assert.deepEqual(Buffer.from(await image.body()), PNG);

    // The server keeps it, with the photo and its creation in the log.
    const stored = await callApi('GET', `/api/v1/risk/accidents/${accident.id}`, { token });
    assert.equal(stored.code, 200, stored.msg);
    assert.equal(stored.data.accident.images.length, 1);
    assert.ok(stored.data.logs.length >= 1);
    await context.close();
  });
});
