// Annual inspections in the browser (issue 23): the demo admin opens 年检管理
// (the demo fleet's year of inspections), takes the 已逾期 tab, records a
// passed inspection with a licence photo for an overdue vehicle, and sees it
// leave the overdue list with its next due date a year on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A Beijing day as yyyy-MM-dd. */
const beijingDay = (at) => new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 10);

describe('annual inspections', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('records an inspection for an overdue vehicle and sees it leave the overdue list with its next due date', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const overdue = await callApi('GET', '/api/v1/maintenance/inspections?statuses=OVERDUE&page=1&size=20', { token });
    assert.equal(overdue.code, 200, overdue.msg);
    const target = overdue.data.list.find((i) => i.inspectionClass === 'GOODS');
    assert.ok(target, 'the demo fleet has an overdue goods vehicle');

    await page.goto('/carManagement/vehicleManagement/drivingLicense');
    const list = page.getByTestId('inspection-list');
    // The tab's search resets the filter form from the URL: type only after
    // its list has come back, or the reset may wipe what was typed.
    const tabListed = page.waitForResponse((r) => r.url().includes('/api/v1/maintenance/inspections?') && r.url().includes('statuses=OVERDUE'));
    await list.getByTestId('inspection-tabs').getByText('已逾期').click();
    await page.waitForURL(/statuses=OVERDUE/);
    await tabListed;
    await list.getByTestId('filter-bar').locator('input').first().fill(target.plateNumber);
    await list.getByRole('button', { name: /查\s*询/ }).click();
    await page.waitForURL(/plateNumbers=/);
    const row = list.locator('.ant-table-row').filter({ hasText: target.plateNumber });
    await row.getByTestId('inspection-status').filter({ hasText: '已逾期' }).waitFor();
    await screenshot(page, 'inspections-overdue');

    await row.getByTestId('inspection-record').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: '登记年检' });
    await dialog.waitFor();
    await dialog.getByLabel('检验机构').fill('深圳市安车机动车检测站');
    // The licence photo through the shared file-attachment dialog.
    await dialog.getByTestId('inspection-images').click();
    const attach = page.locator('.ant-modal:visible').filter({ hasText: '年检照片' }).last();
    await attach.locator('input[type=file]').first().setInputFiles({ name: 'licence.png', mimeType: 'image/png', buffer: PNG });
    await attach.locator('.ant-upload-list-item-done, .ant-upload-list-item:not(.ant-upload-list-item-uploading)').first().waitFor();
    await attach.locator('.ant-modal-footer .ant-btn-primary').click();
    await dialog.getByTestId('inspection-image-count').filter({ hasText: '1' }).waitFor();
    await screenshot(page, 'inspections-record');

    const recorded = page.waitForResponse((r) => r.url().endsWith('/record') && r.request().method() === 'POST');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').last().click();
    const answer = await (await recorded).json();
    assert.equal(answer.code, 200, answer.msg);
    assert.equal(answer.data.inspection.status, 'VALID');
    assert.equal(answer.data.record.images.length, 1);
    // A goods vehicle: a year from today (or half a year past ten years of age).
    const today = new Date();
    const dueDay = beijingDay(new Date(answer.data.inspection.expireTime));
    assert.ok(dueDay > beijingDay(today), `the next due date ${dueDay} is ahead`);
    await dialog.waitFor({ state: 'hidden' });

    // It has left the overdue list.
    await list.locator('.ant-table-row').filter({ hasText: target.plateNumber }).waitFor({ state: 'detached' });
    // On the 有效 tab with its next due date.
    await list.getByTestId('inspection-tabs').getByText('有效').click();
    await page.waitForURL((url) => url.searchParams.get('statuses') === 'VALID' && url.searchParams.has('plateNumbers'));
    const valid = list.locator('.ant-table-row').filter({ hasText: target.plateNumber });
    await valid.getByTestId('inspection-status').filter({ hasText: '有效' }).waitFor();
    await valid.getByText(dueDay).waitFor();
    await valid.getByTestId('inspection-view').click();
    const detail = page.getByTestId('inspection-detail');
    await detail.getByTestId('inspection-history').getByText('licence.png').waitFor();
    await detail.getByTestId('inspection-logs').getByText(/登记年检/).first().waitFor();
    await screenshot(page, 'inspections-detail');
    await context.close();
  });
});
