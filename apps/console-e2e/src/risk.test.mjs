// Risk alarms in the browser (issue 21): the live fleet (the simulator's
// terminals) runs under the demo enterprise's alarm rules, so alarms are raised
// while the suite runs. One raised since this test began is found in the
// untreated list by its plate, handled from its detail drawer with a method and
// a remark, and then leaves the untreated filter; its activity log shows the move.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, until } from './support.mjs';

const ALARMS = '/carManagement/riskControll/riskAlarmRecord';

/** An instant as the list shows it: Beijing time, 2026-11-29 08:15:00. */
function beijing(iso) {
  return new Date(Date.parse(iso) + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** A calendar day `offset` days from today, as the date filters write it. */
function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

describe('risk alarms', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('finds an alarm the live fleet raised among the untreated and handles it to closure', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const since = Date.now() - 60_000;
    const range = `alarmTimeStart=${day(-1)}&alarmTimeEnd=${day(1)}`;
    const untreated = async () => {
      const answer = await callApi('GET', `/api/v1/risk/alarms?statuses=UNHANDLED&size=100&${range}`, { token });
      assert.equal(answer.code, 200, answer.msg);
      return answer.data.list;
    };
    const alarm = await until(
      'an alarm raised by the live fleet',
      async () => (await untreated()).find((a) => Date.parse(a.alarmTime) >= since),
      180_000,
      2_000,
    );

    // The untreated list of that plate shows it.
    await page.goto(`${ALARMS}?statuses=UNHANDLED&plateNumbers=${encodeURIComponent(alarm.plateNumber)}&${range}`);
    const list = page.getByTestId('risk-alarm-list');
    const row = list.locator('.ant-table-row').filter({ hasText: alarm.plateNumber }).first();
    await row.waitFor();

    // Its detail drawer: the facts, then 处理 with a method and a remark.
    const opened = page.waitForResponse((r) => r.url().includes(`/api/v1/risk/alarms/${alarm.id}`));
    await page.evaluate(() => window.scrollTo(0, 0));
    await list
      .locator('.ant-table-row')
      .filter({ hasText: alarm.plateNumber })
      .getByTestId('alarm-detail')
      .first()
      .click();
    const drawer = page.getByTestId('alarm-drawer');
    await drawer.getByTestId('alarm-facts').waitFor();
    const shown = await (await opened).json();
    const handled = shown.data.alarm.id;
    await drawer.getByTestId('drawer-handle').click();
    const dialog = page.locator('.ant-modal:visible');
    await dialog.getByTestId('handle-method').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click();
    await dialog.getByTestId('handle-remark').fill('已电话联系司机，提醒安全驾驶');
    await screenshot(page, 'risk-alarm-handle');
    await dialog.locator('.ant-btn-primary').click();
    await dialog.waitFor({ state: 'hidden' });

    // It left the untreated filter; the server agrees, and its log holds the move.
    await until('the alarm to leave the untreated list', async () => !(await untreated()).some((a) => a.id === handled));
    const detail = await callApi('GET', `/api/v1/risk/alarms/${handled}`, { token });
    assert.equal(detail.code, 200, detail.msg);
    assert.equal(detail.data.alarm.status, 'HANDLED');
    assert.ok(detail.data.activities.some((a) => a.action === 'HANDLED' && a.remark === '已电话联系司机，提醒安全驾驶'));
    // The untreated list, read again, has no row of it (plate and start time).
    const relisted = page.waitForResponse((r) => r.url().includes('/api/v1/risk/alarms?'));
    await page.reload();
    await relisted;
    await list.locator('.ant-table-row, .ant-empty').first().waitFor();
    const start = beijing(shown.data.alarm.alarmTime);
    const rows = await list.locator('.ant-table-row').allInnerTexts();
    assert.ok(!rows.some((r) => r.includes(alarm.plateNumber) && r.includes(start)), `${start} still listed`);
    await context.close();
  });
});
