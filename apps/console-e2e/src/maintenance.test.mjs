// Maintenance reminders in the browser (issue 23): the demo admin completes the
// most urgent reminder of the demo fleet on the complete dialog (the odometer
// prefilled from telemetry, the schedule reset from this service), and finds
// the next one scheduled: due the plan's interval after this service, listed,
// and the service in its history.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

describe('maintenance reminders', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('completes a reminder and shows the next one scheduled', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    // A reminder that falls due of a vehicle that reports (its odometer comes
    // from telemetry) past its last service's, most urgent first. Right after
    // the stack starts the simulated fleet may not have reported yet: looked
    // for again until it has.
    let target;
    for (const deadline = Date.now() + 60_000; !target && Date.now() < deadline; ) {
      for (let n = 1; !target && n <= 60; n += 1) {
        const page_ = await callApi('GET', `/api/v1/maintenance/reminders?page=${n}&size=100`, { token });
        assert.equal(page_.code, 200, page_.msg);
        if (page_.data.list.length === 0) break;
        target = page_.data.list.find(
          (r) => r.currentOdometerM > 0 && r.currentOdometerM >= r.lastServiceOdometerM && ['OVERDUE', 'DUE', 'DUE_SOON'].includes(r.status),
        );
      }
      if (!target) await new Promise((r) => setTimeout(r, 2_000));
    }
    assert.ok(target, 'the demo has a reminder falling due on a reporting vehicle');
    await page.goto('/carManagement/vehicleManagement/carMaintenance');
    const list = page.getByTestId('maintenance-list');
    await list.getByTestId('filter-bar').locator('input').first().fill(target.plateNumber);
    await list.getByRole('button', { name: /查\s*询/ }).click();
    const first = list.locator('.ant-table-row').filter({ hasText: target.plateNumber }).first();
    await first.waitFor();
    await first.getByTestId('reminder-status').filter({ hasText: /已逾期|已到期|即将到期/ }).waitFor();
    const plate = (await first.locator('td').nth(1).innerText()).trim();
    await first.getByTestId('reminder-complete').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: '完成保养' });
    await dialog.waitFor();
    // The odometer comes from telemetry; the schedule is reset from this service.
    const odometer = Number(await dialog.getByLabel('保养里程').inputValue());
    assert.ok(odometer > 0, 'the odometer is prefilled from telemetry');
    await dialog.getByLabel('保养单位').fill('途虎养车工场店');
    await dialog.getByLabel('保养费用').fill('680');
    await dialog.getByLabel('从本次保养重新计算').check();
    await screenshot(page, 'maintenance-complete');
    const completed = page.waitForResponse((r) => r.url().endsWith('/complete') && r.request().method() === 'POST');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const answer = await (await completed).json();
    assert.equal(answer.code, 200, answer.msg);
    await dialog.waitFor({ state: 'hidden' });
    const { completed: done, next } = answer.data;
    assert.equal(done.status, 'DONE');
    assert.equal(next.plateNumber, plate);
    if (next.intervalM) assert.equal(next.dueOdometerM, Math.round(odometer * 1000) + next.intervalM);
    assert.notEqual(next.status, 'OVERDUE');

    // The next one is listed, and its detail holds the service.
    const stored = await callApi('GET', `/api/v1/maintenance/reminders/${next.id}`, { token });
    assert.equal(stored.code, 200, stored.msg);
    assert.equal(stored.data.records[0].supplier, '途虎养车工场店');
    assert.equal(stored.data.records[0].costFen, 68_000);
    assert.equal(stored.data.records[0].schedule, 'RESET');
    const row = list.locator('.ant-table-row').filter({ hasText: plate }).first();
    await row.waitFor();
    await row.getByTestId('reminder-view').click();
    const detail = page.getByTestId('maintenance-detail');
    await detail.waitFor();
    await detail.getByText('途虎养车工场店').first().waitFor();
    await screenshot(page, 'maintenance-detail');
    await context.close();
  });
});
