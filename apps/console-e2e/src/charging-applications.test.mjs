// The charging application history in the browser, on the shared stack: the
// demo enterprise (opened by the seed, so its one application was approved by
// 平台运营) opens 申请记录 on /chargeIntroduce, reads its applications with their
// status tags, and exports them: the 导出 notice, then a finished export record
// with one row per application.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, toast, until } from './support.mjs';

const STARTED = '导出结果请到右上方个人信息下【导出记录】中查看下载结果';

describe('charging applications', () => {
  let browser;
  let current;
  before(async () => {
    browser = await launch();
  });
  afterEach(async () => {
    if (current) await screenshot(current, 'charging-applications-end').catch(() => undefined);
  });
  after(async () => {
    await browser?.close();
  });

  it('lists the enterprise applications from the introduction page and exports them to an export record', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const listed = await callApi('GET', '/api/v1/charging/open-applications', { token });
    assert.equal(listed.code, 200, listed.msg);
    assert.ok(listed.data.total >= 1, 'the seed opened the demo enterprise through an application');

    await page.goto('/chargeIntroduce');
    await page.getByTestId('charge-open-state').getByText('已开通').waitFor();
    await page.getByTestId('open-applications').click();
    const drawer = page.getByTestId('open-applications-drawer');
    const rows = drawer.locator('.ant-table-tbody tr.ant-table-row');
    await rows.first().waitFor();
    assert.equal(await rows.count(), Math.min(listed.data.total, 20));
    const approved = rows.filter({ has: page.locator('.ant-tag', { hasText: '已开通' }) }).first();
    await approved.getByText('平台运营').waitFor();
    // The serial column counts from 1.
    await rows.first().locator('td').first().getByText('1', { exact: true }).waitFor();
    await screenshot(page, 'charging-applications');

    const started = page.waitForResponse((r) => r.url().includes('/api/v1/charging/open-applications/export') && r.request().method() === 'POST');
    await drawer.getByTestId('export-button').click();
    await toast(page, STARTED).waitFor();
    const answer = await (await started).json();
    assert.equal(answer.data.name, '充电开通申请记录');
    const record = await until('the export to finish', async () => {
      const r = await callApi('GET', `/api/v1/export-records/${answer.data.id}`, { token });
      return r.data?.status === 3 ? r.data : undefined;
    });
    assert.equal(Number(record.rowCount), listed.data.total);
    await context.close();
  });
});
