// Operation logs in the browser (issue 21): the demo's three weeks of rounds
// went through ingest, which kept each van's days and months; the monthly log
// of one van shows its kilometres, and its daily log the days that add up to them;
// the safety report ranks the vans by score.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

const LOGS = '/carManagement/assetsReport/operationLog';

/** "1,234.5" → 1234.5 */
function km(text) {
  return Number(text.replace(/[^\d.]/g, ''));
}

describe('operation logs', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it("reads a van's monthly log and finds its days in the daily log", async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: `${LOGS}/monthlyLog` });
    const monthly = page.getByTestId('monthly-log-list');
    const first = monthly.locator('.ant-table-row').first();
    await first.waitFor();
    assert.ok(km(await monthly.getByTestId('totals-mileage').innerText()) > 0, 'the month has kilometres');

    // One van of the rounds (the live fleet's vans have only today): its month, by plate.
    const month = new Date(Date.now() + 8 * 3_600_000).toISOString().slice(0, 7);
    const token = await sessionToken(context);
    const monthOf = async (plates) => {
      const answer = await callApi(
        'GET',
        `/api/v1/reports/monthly-logs?startMonth=${month}&endMonth=${month}&size=100${plates}`,
        { token },
      );
      assert.equal(answer.code, 200, answer.msg);
      return answer.data.list;
    };
    const list = await monthOf('');
    const van = list.find((r) => r.operatingDays >= 3) ?? list.find((r) => r.mileageM > 0);
    assert.ok(van, 'a van with kilometres this month');
    const plate = van.plateNumber;
    await page.goto(`${LOGS}/monthlyLog?plateNumbers=${encodeURIComponent(plate)}`);
    const rows = monthly.locator('.ant-table-row');
    await rows.first().waitFor();
    const texts = await rows.allInnerTexts();
    assert.ok(texts.every((t) => t.includes(plate)), texts.join('\n'));
    // Early in a month the van may be one the live fleet is driving now, so its
    // month can grow while the page loads: the page shows a figure between the
    // month read before it and the month read after it.
    const shown = km(await monthly.getByTestId('totals-mileage').innerText());
    const [later] = await monthOf(`&plateNumbers=${encodeURIComponent(plate)}`);
    const kmOf = (r) => Math.round(r.mileageM / 100) / 10;
    assert.ok(shown >= kmOf(van) && shown <= kmOf(later), `${shown} km, between ${kmOf(van)} and ${kmOf(later)}`);
    await screenshot(page, 'monthly-log');

    // Its days of the last week, each with kilometres.
    await page.goto(`${LOGS}/dailyLog?plateNumbers=${encodeURIComponent(plate)}`);
    const daily = page.getByTestId('daily-log-list');
    await daily.locator('.ant-table-row').first().waitFor();
    const days = await daily.locator('.ant-table-row').count();
    assert.ok(days >= Math.min(3, van.operatingDays), `${days} days`);
    assert.ok(km(await daily.getByTestId('totals-mileage').innerText()) > 0);
    await context.close();
  });

  it("opens the safety report's ranking", async () => {
    const { context, page } = await newPage(browser);
    // Hidden from the menu: reached from the operation log's button.
    await signIn(page, 'demo', { at: `${LOGS}/dailyLog` });
    await page.getByTestId('safety-report-link').click();
    await page.waitForURL(/\/carManagement\/assetsReport\/carSafetyReport/);
    const report = page.getByTestId('safety-report');
    // The ranking's rows (the banner's per-type table has rows of its own).
    const rows = report.locator('.ant-table-row').filter({ has: page.getByTestId('safety-score') });
    await rows.first().waitFor();
    // Worst first: ranked from 1, the vans that drove enough with a score.
    const scored = report.getByTestId('safety-score').filter({ hasText: /^\d+\.\d$/ });
    await scored.first().waitFor();
    const first = await rows.first().innerText();
    assert.match(first, /^1\s/, first);
    const scores = (await scored.allInnerTexts()).map(Number);
    assert.ok(scores.every((s) => s >= 0 && s <= 100), scores.join(','));
    assert.deepEqual(scores, [...scores].sort((a, b) => a - b), 'worst first');
    await screenshot(page, 'safety-report');
    await context.close();
  });
});
