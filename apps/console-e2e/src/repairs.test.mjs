// Repair orders in the browser (issue 23): the demo admin creates a repair
// order, enters the shop's quote above the approval threshold, confirms the
// price (which raises an org approval), approves it on /approve, completes
// the repair and finds the order on its supplier's monthly statement.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, until } from './support.mjs';

const BASE = '/carManagement/vehicleManagement/maintainment';

/** Picks the first option of the antd select whose input has `id`. */
async function pickFirst(page, id, text) {
  await page.locator(`#${id}`).click({ force: true });
  const options = page.locator('.ant-select-dropdown:visible .ant-select-item-option');
  const option = text ? options.filter({ hasText: text }).first() : options.first();
  await option.waitFor();
  await option.click();
}

describe('repair orders', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('takes an order from quote through approval to the supplier statement', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const config = await callApi('GET', '/api/v1/maintenance/repair-config', { token });
    assert.equal(config.code, 200, config.msg);
    const shop = config.data.suppliers.find((s) => s.enabled);
    assert.ok(shop, 'the demo has a repair shop');
    const threshold = config.data.approvalThresholdFen;

    // Create the order.
    await page.goto(`${BASE}/maintainOrder`);
    await page.getByTestId('repair-order-list').waitFor();
    await page.getByTestId('repair-create').click();
    await page.locator('#repair-create_vehicleId').waitFor();
    await pickFirst(page, 'repair-create_vehicleId');
    await pickFirst(page, 'repair-create_kind', '维修');
    await pickFirst(page, 'repair-create_shopId', shop.name);
    await page.locator('#repair-create_faultDescription').fill('变速箱异响，挂挡困难');
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/maintenance/repair-orders') && r.request().method() === 'POST');
    await page.getByTestId('repair-create-submit').click();
    const createAnswer = await (await created).json();
    assert.equal(createAnswer.code, 200, createAnswer.msg);
    const order = createAnswer.data;
    assert.equal(order.status, 'AWAITING_QUOTE');
    const detail = page.getByTestId('repair-detail');
    await detail.getByText(order.orderNo).first().waitFor();

    // The shop's quote, above the threshold.
    const unitYuan = Math.ceil(threshold / 100) + 3000;
    await detail.getByTestId('repair-quote').click();
    const quoteDialog = page.locator('.ant-modal:visible').filter({ hasText: '录入报价' });
    await quoteDialog.waitFor();
    await quoteDialog.getByTestId('repair-add-line').click();
    await quoteDialog.getByTestId('repair-line-name').fill('变速箱总成');
    await quoteDialog.getByTestId('repair-line-price').fill(String(unitYuan));
    const quoted = page.waitForResponse((r) => r.url().endsWith('/quote') && r.request().method() === 'POST');
    await quoteDialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const quoteAnswer = await (await quoted).json();
    assert.equal(quoteAnswer.code, 200, quoteAnswer.msg);
    assert.equal(quoteAnswer.data.quoteTotalFen, unitYuan * 100);
    await detail.getByTestId('repair-status').filter({ hasText: '待确认价格' }).waitFor();

    // Confirm the price: above the threshold it goes to approval.
    await detail.getByTestId('repair-price').click();
    const pricePage = page.getByTestId('repair-price-page');
    await pricePage.getByTestId('repair-price-hint').filter({ hasText: '超过审批阈值' }).waitFor();
    await screenshot(page, 'repairs-price-confirm');
    const confirmed = page.waitForResponse((r) => r.url().endsWith('/confirm-price') && r.request().method() === 'POST');
    await pricePage.getByTestId('repair-accept').click();
    const confirmAnswer = await (await confirmed).json();
    assert.equal(confirmAnswer.code, 200, confirmAnswer.msg);
    assert.equal(confirmAnswer.data.status, 'AWAITING_APPROVAL');

    // Approve it in the approval centre (org raises it from the outbox).
    await until('the approval is raised', async () => {
      const found = await callApi('GET', '/api/v1/approvals?page=1&size=50&kind=5', { token });
      return found.code === 200 && found.data.list.some((a) => a.title.includes(order.orderNo));
    });
    await page.goto('/approve');
    const approvalRow = page.getByTestId('approval-list').locator('tr.ant-table-row').filter({ hasText: order.orderNo }).first();
    await approvalRow.waitFor();
    await approvalRow.getByTestId('approval-title').click();
    await page.waitForURL('**/approveDetails?id=*');
    await page.getByTestId('approve-button').click();
    await page.getByTestId('decision-comment').fill('同意维修');
    await page.getByRole('button', { name: '提 交' }).click();
    await page.getByTestId('approval-status').getByText('已通过').waitFor();

    // The decision comes back: the order is in repair.
    await until('the order is in repair', async () => {
      const found = await callApi('GET', `/api/v1/maintenance/repair-orders/${order.id}`, { token });
      return found.code === 200 && found.data.order.status === 'IN_REPAIR';
    });
    await page.goto(`${BASE}/orderDetail?id=${order.id}`);
    await detail.getByTestId('repair-status').filter({ hasText: '维修中' }).waitFor();

    // Complete it.
    await detail.getByTestId('repair-complete').click();
    const completeDialog = page.locator('.ant-modal:visible').filter({ hasText: '完工' });
    await completeDialog.waitFor();
    const completed = page.waitForResponse((r) => r.url().endsWith('/complete') && r.request().method() === 'POST');
    await completeDialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const completeAnswer = await (await completed).json();
    assert.equal(completeAnswer.code, 200, completeAnswer.msg);
    assert.equal(completeAnswer.data.status, 'COMPLETED');
    assert.ok(completeAnswer.data.statementId, 'the order is on a statement');
    await detail.getByTestId('repair-status').filter({ hasText: '已完工' }).waitFor();

    // The supplier's statement of the month lists it.
    await detail.getByTestId('repair-statement-link').click();
    const statement = page.getByTestId('statement-detail');
    await statement.waitFor();
    await statement.getByText(shop.name).first().waitFor();
    await statement.getByTestId('statement-orders').getByText(order.orderNo).waitFor();
    await statement.getByTestId('statement-status').filter({ hasText: '待确认' }).waitFor();
    await screenshot(page, 'repairs-statement');
  });
});
