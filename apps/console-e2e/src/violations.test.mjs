// Traffic violations in the browser (issue 23): the demo admin opens 违章管理
// (the demo fleet's year from the traffic-authority stand-in), opens an
// unhandled violation, assigns it to a driver, marks it handled, and finds
// the new state and driver in the list.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

describe('traffic violations', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('assigns a violation to a driver, handles it and sees the state change in the list', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const unhandled = await callApi('GET', '/api/v1/maintenance/violations?statuses=UNHANDLED&page=1&size=20', { token });
    assert.equal(unhandled.code, 200, unhandled.msg);
    const target = unhandled.data.list[0];
    assert.ok(target, 'the demo fleet has an unhandled violation');
    const drivers = await callApi('GET', '/api/v1/drivers?page=1&size=5', { token });
    assert.equal(drivers.code, 200, drivers.msg);
    const driver = drivers.data.list.find((d) => d.name && d.name !== target.driverName);
    assert.ok(driver, 'the demo has a driver to assign');

    await page.goto('/carManagement/vehicleManagement/trafficViolations');
    const list = page.getByTestId('violation-list');
    await list.getByTestId('violation-totals').filter({ hasText: /罚款合计/ }).waitFor();
    await list.getByTestId('filter-bar').locator('input').first().fill(target.plateNumber);
    await list.getByRole('button', { name: /查\s*询/ }).click();
    const row = list.locator('.ant-table-row').filter({ hasText: target.decisionNo });
    await row.waitFor();
    await row.getByTestId('violation-status').filter({ hasText: '未处理' }).waitFor();
    await screenshot(page, 'violations-list');
    await row.getByTestId('violation-view').click();

    const detail = page.getByTestId('violation-detail');
    await detail.waitFor();
    await detail.getByText(target.decisionNo).first().waitFor();
    // Assign the driver.
    await detail.getByTestId('violation-assign').click();
    const assignDialog = page.locator('.ant-modal:visible').filter({ hasText: '指派司机' });
    await assignDialog.waitFor();
    await assignDialog.getByTestId('violation-driver').click();
    await assignDialog.locator('.ant-select-selection-search-input, input[role="combobox"]').first().fill(driver.name);
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: driver.name }).first().click();
    await assignDialog.getByTestId('violation-remark').fill('司机本人确认');
    const assigned = page.waitForResponse((r) => r.url().endsWith('/assign') && r.request().method() === 'POST');
    await assignDialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const assignAnswer = await (await assigned).json();
    assert.equal(assignAnswer.code, 200, assignAnswer.msg);
    assert.equal(assignAnswer.data.driverName, driver.name);
    assert.equal(assignAnswer.data.driverAssigned, true);
    await assignDialog.waitFor({ state: 'hidden' });
    await detail.getByTestId('violation-detail-driver').filter({ hasText: driver.name }).waitFor();

    // Mark it handled.
    await detail.getByTestId('violation-handle').click();
    const handleDialog = page.locator('.ant-modal:visible').filter({ hasText: '确认该违章' });
    await handleDialog.waitFor();
    const handled = page.waitForResponse((r) => r.url().endsWith('/handle') && r.request().method() === 'POST');
    await handleDialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const handleAnswer = await (await handled).json();
    assert.equal(handleAnswer.code, 200, handleAnswer.msg);
    assert.equal(handleAnswer.data.status, 'HANDLED');
    await detail.getByTestId('violation-detail-status').filter({ hasText: '已处理' }).waitFor();
    await detail.getByTestId('violation-logs').getByText('未处理 → 已处理').waitFor();
    assert.ok(await detail.getByTestId('violation-handle').isDisabled(), 'a handled violation is not handled twice');
    await screenshot(page, 'violations-detail');

    // Back in the list (its filter kept in the URL): the new state and the assigned driver.
    await page.goBack();
    const again = page.getByTestId('violation-list').locator('.ant-table-row').filter({ hasText: target.decisionNo });
    await again.getByTestId('violation-status').filter({ hasText: '已处理' }).waitFor();
    await again.getByText(driver.name).waitFor();
    await context.close();
  });

  it('filters by the city of a serving organisation, chosen in the cascader and kept in the URL', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const all = await callApi('GET', '/api/v1/maintenance/violations?page=1&size=20', { token });
    const shenzhen = await callApi('GET', '/api/v1/maintenance/violations?cityCode=440300&page=1&size=20', { token });
    assert.equal(shenzhen.code, 200, shenzhen.msg);
    assert.ok(shenzhen.data.total > 0 && shenzhen.data.total < all.data.total, `深圳 holds some of the demo's violations: ${shenzhen.data.total} of ${all.data.total}`);

    await page.goto('/carManagement/vehicleManagement/trafficViolations');
    const list = page.getByTestId('violation-list');
    await list.getByTestId('violation-totals').filter({ hasText: /罚款合计/ }).waitFor();
    // 演示物流有限公司 → 华南大区 (serves 广州, 深圳, 东莞) → 深圳市.
    // The cascader sits on the filter bar's second row: 展开 shows it.
    await list.getByTestId('filter-bar').getByRole('button', { name: /展\s*开/ }).click();
    await list.getByRole('combobox', { name: '请选择服务组织/城市' }).click();
    const menus = page.locator('.ant-cascader-dropdown:visible .ant-cascader-menu');
    await menus.nth(0).locator('.ant-cascader-menu-item[title="演示物流有限公司"]').click();
    await menus.nth(1).locator('.ant-cascader-menu-item[title="华南大区"]').click();
    await menus.nth(2).locator('.ant-cascader-menu-item[title="深圳市"]').click();
    const filtered = page.waitForResponse((r) => r.url().includes('/api/v1/maintenance/violations?') && r.url().includes('cityCode=440300'));
    await list.getByRole('button', { name: /查\s*询/ }).click();
    const answer = await (await filtered).json();
    assert.equal(answer.code, 200, answer.msg);
    assert.equal(answer.data.total, shenzhen.data.total, 'the page lists what the city filter finds');
    const cities = new Set(answer.data.list.map((v) => v.cityCode));
    assert.deepEqual([...cities], ['440300'], 'every row happened in 深圳');
    await list.locator('.ant-table-row').filter({ hasText: answer.data.list[0].decisionNo }).waitFor();
    // The search updates the page in place: the bar stays expanded, the choice in view.
    await list.getByTestId('filter-bar').getByRole('button', { name: /收\s*起/ }).waitFor();
    await list.getByText('演示物流有限公司 / 华南大区 / 深圳市').waitFor();
    await screenshot(page, 'violations-serve-city');

    // A reload restores the choice from the URL, and the bar opens by itself:
    // the filter in force sits on its second row.
    assert.match(page.url(), /serveCity=/);
    await page.reload();
    const reloaded = page.getByTestId('violation-list');
    await reloaded.getByTestId('filter-bar').getByRole('button', { name: /收\s*起/ }).waitFor();
    await reloaded.getByText('演示物流有限公司 / 华南大区 / 深圳市').waitFor();
    await context.close();
  });
});
