// Energy and charging in the browser (issue 11), on the shared stack: the cold
// chain enterprise (demo2, not opened) applies from the energy popup and reads
// 申请中, the operator opens it and its energy menu is complete; the demo
// enterprise (opened by the seed) allocates to a sub-organisation and sees both
// balances move, issues a card and tops it up, has the charging platform
// stand-in run a session of that card and finds it in 消费记录, and downloads a
// monthly statement. No page under 能源管理
// shows the placeholder.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { callApi, launch, newPage, pickFirstTreeNode, screenshot, sessionToken, signIn, inputOf, standIn, toast, until, vinFor } from './support.mjs';

const CHARGE = '/energyManagement/charge';
const APPLIED = '您的开通申请已经提交成功，工作人员将在3个工作日内与您联系，请保持电话畅通';
const suffix = `${Date.now()}`.slice(-5);

/** Every page of the energy menu: its route and the test id it renders. */
const ENERGY_PAGES = {
  [`${CHARGE}/dashboard`]: 'charge-dashboard',
  [`${CHARGE}/accountManagement/accountBalanceAllocation`]: 'account-allocation',
  [`${CHARGE}/accountManagement/balanceAllocationRecord`]: 'allocation-list',
  [`${CHARGE}/accountManagement/juniorElectricCard`]: 'junior-card-list',
  [`${CHARGE}/chargeManagement/electricCard`]: 'card-list',
  [`${CHARGE}/chargeManagement/consumeRecord`]: 'session-list',
  [`${CHARGE}/chargeManagement/countChangeRecord`]: 'amount-change-list',
  [`${CHARGE}/chargeManagement/scanPlateRecord`]: 'plate-scan-list',
  [`${CHARGE}/chargeReconciliation`]: 'statement-list',
};
const MENU_ENTRIES = ['充电看板', '余额分配', '分配记录', '下级充电卡', '充电卡', '消费记录', '额度变更记录', '扫牌记录', '充电对账'];

/** Fen as the console shows yuan: 350000 → '3,500.00'. */
const yuan = (fen) => `${fen < 0 ? '-' : ''}${Math.floor(Math.abs(fen) / 100).toLocaleString('en-US')}.${String(Math.abs(fen) % 100).padStart(2, '0')}`;

/** The gateway's answer's data (a 200 is asserted). */
async function apiData(token, method, path, body) {
  const answer = await callApi(method, path, { token, body });
  assert.equal(answer.code, 200, `${method} ${path}: ${answer.msg}`);
  return answer.data;
}

function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

/** Picks the option with `text` in the open select dropdown. */
async function pick(page, text) {
  await page.locator('.ant-select-dropdown:visible').getByText(text, { exact: false }).first().click();
}

describe('charging', () => {
  let browser;
  let n = 0;
  let current;
  before(async () => {
    browser = await launch();
  });
  afterEach(async () => {
    n += 1;
    if (current) await screenshot(current, `charging-${n}-end`).catch(() => undefined);
  });
  after(async () => {
    await browser?.close();
  });

  it('applies for charging from the energy popup (申请中), and once the operator opens it shows the full energy menu', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo2');
    const token = await sessionToken(context);
    assert.equal((await apiData(token, 'GET', '/api/v1/charging/open-status')).state, 'NOT_OPENED', 'demo2 starts without charging');

    // Not opened: the popup introduces the service; 查看详情 opens /chargeIntroduce.
    await page.getByTestId('nav-energyManagement').hover();
    const intro = page.getByTestId('energy-intro');
    await intro.waitFor();
    for (const figure of ['19万+', '200万+', '15%起', '1000+']) await intro.getByText(figure).waitFor();
    await intro.getByRole('button', { name: '查看详情' }).click();
    await page.waitForURL('**/chargeIntroduce');
    await page.getByTestId('charge-open-state').getByText('未开通').waitFor();

    // 申请开通 in the popup: the spec's text, then 申请中 everywhere.
    await page.getByTestId('nav-energyManagement').hover();
    await intro.getByRole('button', { name: '申请开通' }).click();
    await toast(page, APPLIED).waitFor();
    await intro.getByRole('button', { name: '申请中' }).waitFor();
    assert.ok(await intro.getByRole('button', { name: '申请中' }).isDisabled(), 'a pending application refuses another');
    await screenshot(page, 'charging-applying');
    await page.mouse.move(700, 800);
    await page.getByTestId('charge-open-state').getByText('申请中').waitFor();
    const again = await callApi('POST', '/api/v1/charging/open-applications', { token, body: { remark: '' } });
    assert.equal(again.code, 4009, 'the server refuses a second application too');
    // A charging page before opening says so, with the application's state.
    await page.goto(`${CHARGE}/chargeManagement/electricCard`);
    await page.getByTestId('charging-not-opened').getByRole('button', { name: '申请中' }).waitFor();

    // The operator opens it (the operator's tools call energy as svc:operator).
    const { latestApplication } = await apiData(token, 'GET', '/api/v1/charging/open-status');
    await apiData(undefined, 'POST', `/api/v1/dev/charging-open-applications/${latestApplication.id}/approve`, { creditLimitFen: 0, reason: '' });
    await until('the enterprise flags to say charging is open', async () => (await apiData(token, 'GET', '/api/v1/me')).flags.isChargeAccount === true);

    // A charging account: the full energy menu, and every page is a real one.
    await page.reload();
    await page.getByTestId('nav-energyManagement').hover();
    const menu = page.getByTestId('mega-menu');
    await menu.waitFor();
    for (const entry of MENU_ENTRIES) await menu.getByText(entry, { exact: true }).waitFor();
    assert.equal(await page.getByTestId('energy-intro').count(), 0);
    await screenshot(page, 'charging-menu');
    await menu.getByText('余额分配', { exact: true }).click();
    await page.getByTestId('account-allocation').getByText('冷链事业部').first().waitFor();
    for (const [path, testId] of Object.entries(ENERGY_PAGES)) {
      await page.goto(path);
      await page.getByTestId(testId).first().waitFor();
      assert.equal(await page.getByText('即将上线').count(), 0, `${path} shows the placeholder`);
    }
    await page.goto('/chargeIntroduce');
    await page.getByTestId('charge-open-state').getByText('已开通').waitFor();
    await context.close();
  });

  it('allocates from the main account to a sub-organisation and shows both balances changed', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const accounts = await apiData(token, 'GET', '/api/v1/charging/accounts');
    const main = accounts.find((a) => a.kind === 'MAIN');
    const child = accounts.find((a) => a.parentAccountId === main.id && a.status === 'ACTIVE');
    const amountFen = 12_345;

    await page.goto(`${CHARGE}/accountManagement/accountBalanceAllocation`);
    const tree = page.getByTestId('account-allocation');
    await tree.getByTestId(`available-${main.id}`).getByText(yuan(main.availableFen)).waitFor();
    await tree.locator(`tr[data-row-key="${main.id}"]`).getByTestId('account-allocate').click();
    const form = dialog(page, '余额分配');
    await form.getByTestId('allocate-target').click();
    await pick(page, child.orgName);
    await inputOf(form, 'allocate-amount').fill('123.45');
    await screenshot(page, 'charging-allocate');
    await form.getByRole('button', { name: '提 交' }).click();
    await toast(page, '分配成功').waitFor();
    await tree.getByTestId(`available-${main.id}`).getByText(yuan(main.availableFen - amountFen)).waitFor();
    await tree.getByTestId(`available-${child.id}`).getByText(yuan(child.availableFen + amountFen)).waitFor();
    await screenshot(page, 'charging-allocated');

    // The record: newest first, with the balances after it.
    await page.goto(`${CHARGE}/accountManagement/balanceAllocationRecord`);
    const first = page.getByTestId('allocation-list').locator('tbody tr.ant-table-row').first();
    await first.getByText('123.45', { exact: true }).waitFor();
    await first.getByText(child.orgName).waitFor();
    await context.close();
  });

  // The session is started, charged and ended through the stand-in's admin
  // API (as the operator's platform would run it), not left to the generator.
  it('issues a card for a new vehicle, tops it up, and shows a simulated session of that card', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const orgs = await apiData(token, 'GET', '/api/v1/orgs/simple');
    const root = orgs.find((o) => !o.parentId) ?? orgs[0];
    const plate = `沪AD${suffix}`;
    const vehicle = await apiData(token, 'POST', '/api/v1/vehicles', { orgId: root.orgId, plateNumber: plate, vin: vinFor(`8${suffix}`), brand: '开瑞', model: '江豚 EV', category: 'VAN', ownershipType: 'OWNED', energyType: 'BATTERY_ELECTRIC', batteryCapacityWh: 41_860 });
    const cardNo = `EC2026${suffix}`;

    await page.goto(`${CHARGE}/chargeManagement/electricCard`);
    const list = page.getByTestId('card-list');
    await list.getByTestId('card-add').click();
    const form = dialog(page, '开通充电卡');
    // The root organisation is the tree's first node; the pick is retried
    // when a click lands while the dropdown is still opening.
    await pickFirstTreeNode(page, form.getByTestId('card-org'));
    await form.getByTestId('card-org').getByText(root.name, { exact: true }).waitFor();
    await inputOf(form, 'card-no').fill(cardNo);
    await form.getByTestId('card-vehicle').click();
    await page.keyboard.type(plate);
    await pick(page, plate);
    await form.getByRole('button', { name: '提 交' }).click();
    await toast(page, '开卡成功').waitFor();
    const row = list.locator('tr', { hasText: cardNo });
    await row.getByText(plate).waitFor();
    await row.getByTestId('card-balance').getByText('0.00').waitFor();

    // 额度变更: 200 yuan from the account onto the card.
    await row.getByTestId('card-amount-open').click();
    const change = dialog(page, '充电卡额度变更');
    await inputOf(change, 'card-amount').fill('200');
    await change.getByRole('button', { name: '提 交' }).click();
    await toast(page, '额度变更成功').waitFor();
    await row.getByTestId('card-balance').getByText('200.00').waitFor();
    await screenshot(page, 'charging-card');

    // The charging platform stand-in charges the new card for 20 minutes at
    // 60 kW at one of its stations and ends the session: energy holds,
    // captures and settles it over OCPI.
    const card = (await apiData(token, 'GET', `/api/v1/charging/cards?cardNo=${cardNo}`)).list[0];
    assert.equal(card.vehicleId, vehicle.id);
    const [station] = await standIn('GET', '/admin/locations');
    const started = await standIn('POST', '/admin/sessions', { token_uid: cardNo, location_id: station.location_id, power_kw: 60, start_soc: 35 });
    assert.equal(started.outcome, 'charging', JSON.stringify(started));
    await standIn('POST', `/admin/sessions/${started.session.id}/advance`, { minutes: 20 });
    const ended = await standIn('POST', `/admin/sessions/${started.session.id}/stop`);
    assert.ok(ended.cdr_delivered, JSON.stringify(ended));
    const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
    const range = `startTimeStart=${today}&startTimeEnd=${today}`;
    // The stand-in's own generator may charge the card too: this session by its number.
    const listed = await until(
      'the session of the new card',
      async () => {
        const page = await apiData(token, 'GET', `/api/v1/charging/sessions?cardNo=${cardNo}&${range}`);
        return page.list.some((s) => s.sessionNo === started.session.id) && page;
      },
      10_000,
    );
    const session = listed.list.find((s) => s.sessionNo === started.session.id);
    assert.equal(session.plateNumber, plate);
    assert.equal(session.status, 'SETTLED');
    await page.goto(`${CHARGE}/chargeManagement/consumeRecord?cardNo=${cardNo}&${range}`);
    const sessions = page.getByTestId('session-list');
    await sessions.locator('tr', { hasText: session.sessionNo }).first().waitFor();
    await sessions.getByTestId('session-totals').getByText(`共 ${listed.total} 单`).waitFor();
    await sessions.locator('tr', { hasText: session.sessionNo }).getByTestId('session-open').click();
    await page.getByTestId('session-detail').getByText(plate).waitFor();
    await screenshot(page, 'charging-session');
    await context.close();
  });

  it('generates this month’s statement and downloads it as xlsx', async () => {
    const { context, page } = await newPage(browser, { acceptDownloads: true });
    current = page;
    await signIn(page, 'demo', { at: `${CHARGE}/chargeReconciliation` });
    await page.getByTestId('statement-list').waitFor();
    // This month so far, as a draft: generated on demand, with its workbook.
    await page.getByTestId('statement-generate').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: '提 交' }).click();
    // The generated statement opens in its drawer, with its card lines.
    const drawer = page.locator('.ant-drawer', { hasText: '对账单详情' });
    await drawer.getByText('按充电卡明细').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), drawer.getByTestId('statement-download').click()]);
    assert.match(download.suggestedFilename(), /\.xlsx$/);
    const bytes = await readFile(await download.path());
    assert.equal(bytes.subarray(0, 2).toString(), 'PK', 'an xlsx (zip) workbook');
    await screenshot(page, 'charging-statement');
    await context.close();
  });
});
