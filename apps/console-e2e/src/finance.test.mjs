// Finance in the browser (issue 24), on the shared stack, as the demo admin
// (demo enterprise A is B2B: it reconciles its B2B bills monthly, pays bills
// from the console, and invoices and refunds its B2B bills). It pays a bill
// from the prepaid balance (the balance drops by its amount); confirms last
// month's B2B charging bill in 月结账单 and pays it by bank transfer (the bank
// stand-in's cashier page opens and the bank confirms by itself, as it does in
// development; the pay page turns paid on its own); refunds part of it back
// through the bank and finds it in 退款记录; applies for a paper invoice on
// the rest (title and address chosen), issued through the invoicing stand-in,
// and downloads its PDF; and takes a coupon off a payment (我的优惠券 shows it
// used). No other test pays, invoices or refunds bills. No page under 财务管理
// that the demo reaches, nor 我的优惠券, shows the placeholder, and the lists
// have rows (订单中心 needs the order-centre list, and the non-B2B variants a
// non-B2B enterprise: no demo enterprise is either).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { BASE_URL, launch, newPage, screenshot, sessionToken, signIn, toast, until } from './support.mjs';

const FINANCE = '/financialManagement';
const BILLS = `${FINANCE}/billManagement`;
const TICKETS = `${FINANCE}/ticketManagement`;
const REFUNDS = `${FINANCE}/refundManagement`;
const suffix = `${Date.now()}`.slice(-6);
// Under load the bank's callback (three seconds after the order) and the
// invoicing worker can take a while; the pages poll or are reloaded meanwhile.
const SETTLE_MS = 90_000;

/** Fen as the console shows money: 123456 → '¥1,234.56'. */
const money = (fen) => `¥${Math.floor(fen / 100).toLocaleString('en-US')}.${String(fen % 100).padStart(2, '0')}`;

/** The gateway's answer's data (a 200 is asserted). */
async function api(token, method, path, body) {
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: { platformId: '1', 'Content-Type': 'application/json', token },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  });
  const answer = await res.json();
  assert.equal(answer.code, 200, `${method} ${path}: ${answer.msg}`);
  return answer.data;
}

/** The prepaid balance in fen. */
async function balanceOf(token) {
  const balances = await api(token, 'GET', '/api/v1/finance/ledger/balances');
  const prepaid = balances.find((b) => b.account === 'PREPAID_BALANCE');
  assert.ok(prepaid, 'the enterprise has a prepaid balance');
  return prepaid.balanceFen;
}

function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

/** Picks the option with `text` in the open select dropdown. */
async function pick(page, text) {
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}

/** The table row holding `text` in the list of `testId`. */
function rowOf(page, testId, text) {
  return page.getByTestId(testId).locator('tbody tr.ant-table-row').filter({ hasText: text });
}

/** Reloads the page until `locator` shows. */
async function reloadUntil(page, what, locator, timeoutMs = SETTLE_MS) {
  await until(
    what,
    async () => {
      await page.reload();
      return locator.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      );
    },
    timeoutMs,
    2_000,
  );
}

describe('finance', () => {
  let browser;
  let n = 0;
  let current;
  let token;
  let isB2B;
  /** The bills this file pays: from the balance, the B2B one by bank, with a coupon (and that coupon). */
  const bills = {};
  /** The refund and the invoice application it makes. */
  const made = {};

  before(async () => {
    browser = await launch();
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    token = await sessionToken(context);
    const me = await api(token, 'GET', '/api/v1/me');
    isB2B = me.flags.isB2B;
    assert.ok(!isB2B || me.permissions.some((p) => p.permissionValue === 'oss:bill:pagepay'), 'a B2B admin holds page pay');
    // Its own bills among the demo's (no other test pays bills): last
    // month's B2B bill awaiting reconciliation, and of the unpaid standard
    // ones, smallest first, one an amount-off coupon applies to and one for
    // the balance.
    bills.b2b = (await api(token, 'GET', '/api/v1/finance/bills?page=1&size=20&statuses=PENDING_CONFIRMATION')).list.find((b) => b.channel === 'B2B');
    assert.ok(bills.b2b, 'the demo has a B2B bill awaiting reconciliation');
    const unpaid = (await api(token, 'GET', '/api/v1/finance/bills?page=1&size=100&statuses=UNPAID')).list
      .filter((b) => b.channel === 'STANDARD' && b.outstandingFen > 0)
      .sort((a, b) => a.outstandingFen - b.outstandingFen);
    for (const bill of unpaid) {
      if (bills.coupon) break;
      const usable = await api(token, 'GET', `/api/v1/finance/coupons?page=1&size=100&usableForBillIds=${bill.id}`);
      const coupon = usable.list.find((c) => c.kind === 'AMOUNT_OFF' && c.faceValueFen < bill.outstandingFen && c.minSpendFen <= bill.outstandingFen);
      if (coupon) Object.assign(bills, { coupon: bill, couponUsed: coupon });
    }
    assert.ok(bills.coupon, 'an unpaid demo bill takes one of the demo\'s amount-off coupons');
    bills.balance = unpaid.find((b) => b.id !== bills.coupon.id);
    assert.ok(bills.balance, 'the demo has unpaid bills to pay');
    await context.close();
  });
  afterEach(async () => {
    n += 1;
    if (current) await screenshot(current, `finance-${n}-end`).catch(() => undefined);
  });
  after(async () => {
    await browser?.close();
  });

  it('pays a bill from the prepaid balance: paid, and the balance is lower by its amount', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const bill = bills.balance;
    const before = await balanceOf(token);

    // 账单列表 → 支付 on the bill's row.
    await page.goto(`${BILLS}/billList?billNos=${encodeURIComponent(bill.billNo)}`);
    const row = rowOf(page, 'finance-bill-list', bill.billNo);
    await row.getByText('待支付').waitFor();
    await row.getByTestId('bill-pay').click();
    await page.waitForURL(`**${BILLS}/billPay?id=*`);
    const form = page.getByTestId('bill-pay-form');
    await form.getByText(`余额 ${money(before)}`).waitFor();
    await form.getByTestId('pay-total').getByText(money(bill.outstandingFen)).waitFor();
    await screenshot(page, 'finance-pay-balance');
    await form.getByTestId('pay-submit').click();
    const result = page.getByTestId('pay-result');
    await result.getByText('支付成功').waitFor();
    await result.getByText(money(bill.outstandingFen)).waitFor();
    assert.equal(await balanceOf(token), before - bill.outstandingFen, 'the balance paid exactly the bill');

    // The bill: paid, nothing outstanding, the balance payment listed.
    await result.getByRole('button', { name: '返回账单' }).click();
    const detail = page.getByTestId('bill-detail');
    await detail.locator('.ant-tag').getByText('已支付').waitFor();
    await detail.getByTestId('bill-outstanding').getByText('¥0.00').waitFor();
    const payment = detail.locator('tr.ant-table-row').filter({ hasText: '账户余额' });
    await payment.getByText('成功').waitFor();
    await payment.getByText(money(bill.outstandingFen)).waitFor();

    // The next bill's pay page offers the lowered balance.
    await page.goto(`${BILLS}/billPay?id=${bills.coupon.id}`);
    await page.getByTestId('bill-pay-form').getByText(`余额 ${money(before - bill.outstandingFen)}`).waitFor();
    await screenshot(page, 'finance-balance-lowered');
    await context.close();
  });

  it('confirms the B2B bill in 月结账单 and pays it by bank transfer: the bank confirms and the bill turns paid', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const bill = bills.b2b;
    const before = await balanceOf(token);

    // 月结账单: the month's bill awaiting reconciliation, confirmed.
    await page.goto(`${BILLS}/monthPayBillList`);
    const months = page.getByTestId('finance-monthly-list').locator('tbody tr.ant-table-row');
    await months.filter({ has: page.getByRole('cell', { name: bill.period, exact: true }) }).getByTestId('monthly-view').click();
    const month = page.getByTestId('monthly-detail');
    await month.locator('tr.ant-table-row').filter({ hasText: bill.billNo }).getByText('待确认').waitFor();
    await month.getByText(`合计 ${money(bill.payableFen)}`).waitFor();
    await month.getByTestId('monthly-confirm').click();
    await toast(page, '账单已确认').waitFor();
    await month.locator('tr.ant-table-row').filter({ hasText: bill.billNo }).getByText('待支付').waitFor();
    await screenshot(page, 'finance-monthly-confirmed');

    await page.goto(`${BILLS}/billDetail?id=${bill.id}`);
    await page.getByTestId('bill-detail').getByTestId('bill-pay').click();
    const form = page.getByTestId('bill-pay-form');
    await form.getByTestId('pay-bank').click();
    await form.getByTestId('pay-total').getByText(money(bill.payableFen)).waitFor();
    const opened = context.waitForEvent('page');
    await form.getByTestId('pay-submit').click();

    // The bank's cashier page, for this amount, in a tab of its own.
    const cashier = await opened;
    await cashier.waitForLoadState();
    assert.match(cashier.url(), /\/pay\/[^/]+$/, 'the bank page is the order\'s cashier');
    await cashier.getByText('网银支付（本地模拟）').first().waitFor();
    await cashier.getByText(`¥${(bill.payableFen / 100).toFixed(2)}`).waitFor();
    await screenshot(cashier, 'finance-bank-cashier');

    // The pay page asks again by itself until the bank's callback settles it.
    const result = page.getByTestId('pay-result');
    await result.getByText('支付成功').waitFor({ timeout: SETTLE_MS });
    await result.getByText(money(bill.payableFen)).waitFor();
    await cashier.reload();
    await cashier.locator('#status').getByText('支付成功').waitFor();
    await cashier.close();
    assert.equal(await balanceOf(token), before, 'a bank payment leaves the balance alone');

    await result.getByRole('button', { name: '返回账单' }).click();
    const detail = page.getByTestId('bill-detail');
    await detail.locator('.ant-tag').getByText('已支付').waitFor();
    await detail.getByTestId('bill-outstanding').getByText('¥0.00').waitFor();
    await detail.locator('tr.ant-table-row').filter({ hasText: '网银支付' }).getByText('成功').waitFor();
    await screenshot(page, 'finance-bank-paid');
    await context.close();
  });

  it('refunds part of the bank-paid bill back through the bank and shows it in 退款记录', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const bill = bills.b2b;
    const part = Math.floor(bill.payableFen / 4);

    // 账单退款: the bill's row, then the application for part of it.
    await page.goto(`${REFUNDS}/billRefund?billNos=${encodeURIComponent(bill.billNo)}`);
    const row = rowOf(page, 'finance-refundable-list', bill.billNo);
    await row.getByText('已支付').waitFor();
    await row.getByTestId('refund-apply').click();
    const form = dialog(page, '申请退款');
    await form.getByText(`可退 ${money(bill.payableFen)}`).waitFor();
    await page.locator('#refund-apply_reason').click();
    await pick(page, '多付退款');
    await page.locator('#refund-apply_amountFen').fill((part / 100).toFixed(2));
    await page.locator('#refund-apply_reasonDetail').fill('对账后核减部分充电费用');
    await screenshot(page, 'finance-refund-apply');
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/finance/refunds') && r.request().method() === 'POST');
    await form.locator('.ant-modal-footer .ant-btn-primary').click();
    const answer = await (await created).json();
    assert.equal(answer.code, 200, answer.msg);
    const refund = answer.data;
    made.refund = refund;
    assert.equal(refund.requestedFen, part);
    await toast(page, '退款申请已提交').waitFor();
    await form.waitFor({ state: 'hidden' });

    // 退款记录: the refund with its amount; confirmed, it goes back the way it was paid.
    await page.goto(`${REFUNDS}/refundRecord`);
    const record = rowOf(page, 'finance-refund-list', refund.refundNo);
    await record.getByText(bill.billNo).waitFor();
    await record.getByText(money(part)).first().waitFor();
    await record.getByText('待审核').waitFor();
    await record.getByTestId('refund-sure').click();
    await page.waitForURL(`**${REFUNDS}/${isB2B ? 'billRefundSureB2B' : 'billRefundSure'}?id=*`);
    const sure = page.getByTestId('refund-sure');
    await page.getByText(`退款 · ${refund.refundNo}`).waitFor();
    await sure.getByTestId('refund-confirm').getByText(`确认退款 ${money(part)}`).waitFor();
    await sure.getByTestId('refund-confirm').click();
    await toast(page, '退款已确认').waitFor();
    await page.waitForURL(`**${REFUNDS}/refundRecord*`);
    await reloadUntil(page, 'the bank to pay the refund', record.getByText('已退款'));
    await record.getByText('原路退回').waitFor();
    await screenshot(page, 'finance-refund-record');

    // The bill: part refunded, still paid.
    await page.goto(`${BILLS}/billDetail?id=${bill.id}`);
    const detail = page.getByTestId('bill-detail');
    await detail.locator('.ant-descriptions-item-content').getByText(money(part), { exact: true }).waitFor();
    await detail.locator('.ant-tag').getByText('已支付').waitFor();
    const stored = await api(token, 'GET', `/api/v1/finance/bills/${bill.id}`);
    assert.equal(stored.bill.refundedFen, part);
    await context.close();
  });

  it('applies for a paper invoice on the rest of the bill, waits for it to be issued and downloads its PDF', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const bill = bills.b2b;
    const rest = bill.payableFen - Math.floor(bill.payableFen / 4);

    // 开票申请: the paid bill, chosen, goes on to the application.
    await page.goto(`${TICKETS}/applyBill?billNos=${encodeURIComponent(bill.billNo)}`);
    const row = rowOf(page, 'finance-invoiceable-list', bill.billNo);
    await row.getByText(money(rest)).first().waitFor();
    await row.locator('.ant-checkbox-input').check();
    await page.getByTestId('invoice-apply').click();
    await page.waitForURL(`**${TICKETS}/${isB2B ? 'applyInvoiceB2BSubmit' : 'applyInvoiceSubmit'}?billNos=*`);
    const form = page.getByTestId('invoice-apply-form');
    await form.getByTestId('invoice-total').getByText(money(rest)).waitFor();

    // Paper, so it is posted: the company title and the fleet office's address.
    await form.getByText('纸质普票', { exact: true }).click();
    await page.locator('#invoice-apply_titleId').click();
    await pick(page, '深圳市星途示范物流有限公司');
    await page.locator('#invoice-apply_addressId').click();
    await pick(page, '周航');
    await page.locator('#invoice-apply_content').fill('充电服务费');
    if (isB2B) {
      await page.locator('#invoice-apply_contractNo').fill(`HT-E2E-${suffix}`);
      await page.locator('#invoice-apply_purchaseOrderNo').fill(`PO-E2E-${suffix}`);
    }
    await screenshot(page, 'finance-invoice-apply');
    const applied = page.waitForResponse((r) => /\/api\/v1\/finance\/(b2b\/)?invoice-applications$/.test(r.url()) && r.request().method() === 'POST');
    await form.getByTestId('invoice-submit').click();
    const answer = await (await applied).json();
    assert.equal(answer.code, 200, answer.msg);
    const application = answer.data;
    made.application = application;
    await toast(page, '开票申请已提交').waitFor();
    await page.waitForURL(`**${TICKETS}/invoiceHistory*`);

    // 开票历史: issued by the worker through the invoicing platform.
    const listed = rowOf(page, 'finance-application-list', application.applicationNo);
    await listed.getByText(money(rest)).waitFor();
    await reloadUntil(page, 'the application to be issued', listed.getByText('已开票'));
    await listed.getByTestId('application-view').click();
    await page.waitForURL(`**${TICKETS}/${isB2B ? 'invoiceHistoryB2BDetail' : 'invoiceHistoryDetail'}?id=*`);
    const detail = page.getByTestId('application-detail');
    await detail.getByText('深圳市星途示范物流有限公司').first().waitFor();
    await detail.getByText(/周航/).first().waitFor();
    if (isB2B) await detail.getByText(`PO-E2E-${suffix}`).waitFor();
    await detail.getByRole('link', { name: bill.billNo }).waitFor();
    const invoice = detail.getByTestId('application-invoices').locator('tr.ant-table-row').first();
    assert.match((await invoice.locator('td').first().innerText()).trim(), /^\d{20}$/, 'a fully digital invoice number has 20 digits');
    await screenshot(page, 'finance-invoice-issued');

    // 下载PDF: the link opens, and serves the PDF itself.
    const link = invoice.getByTestId('invoice-pdf');
    const href = await link.getAttribute('href');
    assert.ok(href, 'the issued invoice has a download link');
    const tab = context.waitForEvent('page');
    await link.click();
    await (await tab).close();
    const file = await fetch(new URL(href, BASE_URL));
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-type') ?? '', /^application\/pdf/);
    const bytes = Buffer.from(await file.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'the invoice is a PDF');

    // The bill counts it as invoiced: nothing is left to invoice.
    const stored = await api(token, 'GET', `/api/v1/finance/bills/${bill.id}`);
    assert.equal(stored.bill.invoicedFen, rest);
    assert.equal(stored.bill.invoiceableFen, 0);
    await context.close();
  });

  it('takes a coupon off a payment, and 我的优惠券 shows it used', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const bill = bills.coupon;
    const coupon = bills.couponUsed;
    const pays = bill.outstandingFen - coupon.faceValueFen;
    const before = await balanceOf(token);

    await page.goto(`${BILLS}/billPay?id=${bill.id}`);
    const form = page.getByTestId('bill-pay-form');
    await form.getByTestId('pay-total').getByText(money(bill.outstandingFen)).waitFor();
    await form.getByTestId('pay-coupon').click();
    await pick(page, `${coupon.name}（-${money(coupon.faceValueFen)}）`);
    await form.getByTestId('pay-total').getByText(money(pays)).waitFor();
    await screenshot(page, 'finance-pay-coupon');
    await form.getByTestId('pay-submit').click();
    const result = page.getByTestId('pay-result');
    await result.getByText('支付成功').waitFor();
    await result.getByText(money(pays)).waitFor();
    assert.equal(await balanceOf(token), before - pays, 'the balance paid the bill less the coupon');

    // The bill is settled in full: what was paid and what the coupon took off.
    await result.getByRole('button', { name: '返回账单' }).click();
    const detail = page.getByTestId('bill-detail');
    await detail.locator('.ant-tag').getByText('已支付').waitFor();
    await detail.getByTestId('bill-outstanding').getByText('¥0.00').waitFor();

    // 我的优惠券: used, with what it took off.
    await page.goto('/myCoupons');
    const row = rowOf(page, 'finance-coupon-list', coupon.couponNo);
    await row.getByText('已使用').waitFor();
    await row.getByText(money(coupon.faceValueFen)).first().waitFor();
    await screenshot(page, 'finance-coupon-used');
    // It is no longer offered.
    const left = await api(token, 'GET', `/api/v1/finance/coupons?page=1&size=100&usableForBillIds=${bills.coupon.id}`);
    assert.ok(!left.list.some((c) => c.id === coupon.id), 'a used coupon is not offered again');
    await context.close();
  });

  it('shows a real page with rows, never 即将上线, under 财务管理 and at 我的优惠券', async () => {
    const { context, page } = await newPage(browser);
    current = page;
    await signIn(page, 'demo');
    const { application, refund } = made;
    assert.ok(application && refund, 'the invoice and refund steps ran');
    const unpaid = (await api(token, 'GET', '/api/v1/finance/bills?page=1&size=5&statuses=UNPAID')).list[0];
    assert.ok(unpaid, 'the demo has an unpaid bill');
    // Route → the test id it renders, and whether it lists rows.
    const channel = (b2b, std) => (isB2B ? b2b : std);
    const pages = [
      // The demo enterprise is on the order-centre list.
      [`${FINANCE}/orderManage`, 'finance-order-list', true],
      [`${FINANCE}/billDashboard`, 'finance-dashboard', false],
      [`${BILLS}/billList`, 'finance-bill-list', true],
      [`${BILLS}/billDetail?id=${bills.balance.id}`, 'bill-detail', true],
      [`${BILLS}/billSettlement`, 'finance-payment-list', true],
      [`${TICKETS}/applyInvoice`, 'invoice-choose-first', false],
      [`${TICKETS}/addressManage`, 'finance-address-list', true],
      [`${TICKETS}/applyBill`, 'finance-invoiceable-list', true],
      [`${TICKETS}/invoiceHistory`, 'finance-application-list', true],
      [`${TICKETS}/${channel('invoiceHistoryB2BDetail', 'invoiceHistoryDetail')}?id=${application.id}`, 'application-detail', true],
      [`${REFUNDS}/billRefund`, 'finance-refundable-list', true],
      [`${REFUNDS}/${channel('billRefundSureB2B', 'billRefundSure')}?id=${refund.id}`, 'refund-sure', false],
      [`${REFUNDS}/refundRecord`, 'finance-refund-list', true],
      ['/billCenter/invoiceManagement/companyManage', 'finance-title-list', true],
      // B2B only: page pay and the monthly reconciliation.
      ...(isB2B
        ? [
            [`${BILLS}/billPay?id=${unpaid.id}`, 'bill-pay-form', false],
            [`${BILLS}/monthPayBillList`, 'finance-monthly-list', true],
          ]
        : []),
      ['/myCoupons', 'finance-coupon-list', true],
    ];
    for (const [path, testId, rows] of pages) {
      await page.goto(path);
      const shown = page.getByTestId(testId).first();
      await shown.waitFor();
      if (rows) await shown.locator('tbody tr.ant-table-row').first().waitFor();
      assert.equal(await page.getByText('即将上线').count(), 0, `${path} shows the placeholder`);
    }
    await page.getByTestId('finance-coupon-list').getByText('可使用').first().waitFor();
    await screenshot(page, 'finance-my-coupons');
    await context.close();
  });
});
