// Notices, approvals, export records and the help centre (console spec §2 Other routes,
// issue 5 item 9): the badges follow the real counts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, toast, until } from './support.mjs';

/** The number a navbar badge shows (0 when hidden). */
async function badgeCount(page, testId) {
  return page.getByTestId(testId).evaluate((button) => {
    const sup = button.closest('.ant-badge')?.querySelector('sup.ant-scroll-number');
    return Number(sup?.getAttribute('title') ?? 0);
  });
}

async function waitForBadge(page, testId, expected) {
  await page.waitForFunction(
    ({ testId, expected }) => {
      const button = document.querySelector(`[data-testid="${testId}"]`);
      const sup = button?.closest('.ant-badge')?.querySelector('sup.ant-scroll-number');
      return Number(sup?.getAttribute('title') ?? 0) === expected;
    },
    { testId, expected },
  );
}

/**
 * Waits until the notice badge shows the server's unread count. New alarm notices can land
 * between the two reads, and the badge only refetches every minute, so a lasting
 * mismatch reloads the page.
 */
async function badgeMatchesApi(page, context) {
  let seen = '';
  await until('the notice badge to show the unread count', async () => {
    const shown = await badgeCount(page, 'notice-badge');
    const unread = await apiData(context, '/api/v1/notices/unread-count');
    if (shown === unread) return true;
    const now = `${shown}/${unread}`;
    if (now === seen) await page.reload();
    seen = now;
    return false;
  }, 30_000, 2_000);
}

async function apiData(context, path) {
  const answer = await callApi('GET', path, { token: await sessionToken(context) });
  assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
  return answer.data;
}

describe('notices, approvals, exports and help centre for demo', () => {
  let browser;
  let context;
  let page;
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser));
    await signIn(page, 'demo');
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });

  it('approves a pending approval and the approval badge falls by one', async () => {
    const pending = await apiData(context, '/api/v1/approvals/count');
    assert.ok(pending > 0, 'the demo enterprise has pending approvals');
    await waitForBadge(page, 'approval-badge', pending);

    await page.getByTestId('approval-badge').click();
    await page.waitForURL('**/approve');
    const row = page.getByTestId('approval-list').locator('tr.ant-table-row').filter({ hasText: '待审批' }).first();
    const title = (await row.getByTestId('approval-title').innerText()).trim();
    await row.getByTestId('approval-title').click();
    await page.waitForURL('**/approveDetails?id=*');
    await page.getByTestId('approval-detail').getByText(title).first().waitFor();

    // The applicant phone comes masked; revealing it is one audited call (console spec §6).
    const logsBefore = (await apiData(context, '/api/v1/sensitive/view-logs?size=5')).total;
    const phone = page.getByTestId('approval-detail').getByTestId('masked-value');
    assert.match((await phone.innerText()).trim(), /^1\d{2}\*{4}\d{4}$/);
    await page.getByTestId('approval-detail').getByRole('button', { name: '显示' }).click();
    await page.getByTestId('approval-detail').getByRole('button', { name: '隐藏' }).waitFor();
    assert.match((await phone.innerText()).trim(), /^1\d{10}$/);
    const logs = await apiData(context, '/api/v1/sensitive/view-logs?size=5');
    assert.equal(logs.total, logsBefore + 1, 'one reveal, one audit row');
    assert.equal(logs.list[0].pageUrl.split('?')[0], '/approveDetails');
    assert.equal(logs.list[0].sourceModule, 'approval');

    // A rejection without a reason is refused in the dialog.
    await page.getByTestId('reject-button').click();
    await page.getByRole('button', { name: '提 交' }).click();
    await page.getByRole('alert').getByText('请输入驳回原因').waitFor();
    await page.getByRole('button', { name: '取 消' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    await page.getByTestId('approve-button').click();
    await page.getByTestId('decision-comment').fill('同意调拨');
    await screenshot(page, 'approval-decision');
    await page.getByRole('button', { name: '提 交' }).click();
    await toast(page, '审批已通过').waitFor();
    await page.getByTestId('approval-status').getByText('已通过').waitFor();
    await page.getByTestId('approval-history').getByText('同意调拨').waitFor();
    await waitForBadge(page, 'approval-badge', pending - 1);
    assert.equal(await badgeCount(page, 'approval-badge'), pending - 1);
    assert.equal(await apiData(context, '/api/v1/approvals/count'), pending - 1);
    assert.equal(await page.getByTestId('approve-button').count(), 0, 'no second decision');
  });

  it('opens an unread notice and the notice badge falls by one', async () => {
    // Alarm notices keep arriving while the simulator drives the demo fleet, so the exact
    // fall is measured on the system notices, and the badge is held to the live count.
    const unreadSystem = async () => (await apiData(context, '/api/v1/notices?read=false&category=system&page=1&size=5')).total;
    const before = await unreadSystem();
    assert.ok(before > 0, 'demo has unread system notices');
    await badgeMatchesApi(page, context);

    await page.getByTestId('notice-badge').click();
    await page.waitForURL('**/notice');
    const filter = page.getByTestId('notice-list').getByTestId('filter-bar');
    await filter.locator('.ant-select').nth(0).click();
    await page.locator('.ant-select-dropdown:visible').getByText('未读', { exact: true }).click();
    await filter.locator('.ant-select').nth(1).click();
    await page.locator('.ant-select-dropdown:visible').getByText('系统通知', { exact: true }).click();
    await filter.getByRole('button', { name: /查\s*询/ }).click();
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-testid="notice-list"] tr.ant-table-row')];
      return rows.length > 0 && rows.every((r) => r.textContent.includes('系统通知') && r.textContent.includes('未读'));
    });
    const row = page.getByTestId('notice-list').locator('tr.ant-table-row').first();
    const title = (await row.getByTestId('notice-title').innerText()).trim();
    await row.getByTestId('notice-title').click();
    await page.waitForURL('**/noticeDetails?id=*');
    const id = new URL(page.url()).searchParams.get('id');
    await page.getByTestId('notice-detail').getByText(title).first().waitFor();
    await page.getByTestId('notice-content').waitFor();
    await page.getByTestId('notice-detail').getByText('已读').waitFor();
    assert.equal(await unreadSystem(), before - 1);
    // The badge follows: it shows the live count again.
    await badgeMatchesApi(page, context);
    await screenshot(page, 'notice-detail');

    // Back on the list, among the read system notices (alarm notices keep
    // arriving and push an older one off the unfiltered first page), it reads 已读.
    await page.goto('/notice');
    const list = page.getByTestId('notice-list');
    await list.locator('tr.ant-table-row').first().waitFor();
    await list.getByTestId('filter-bar').locator('.ant-select').nth(0).click();
    await page.locator('.ant-select-dropdown:visible').getByText('已读', { exact: true }).click();
    await list.getByTestId('filter-bar').locator('.ant-select').nth(1).click();
    await page.locator('.ant-select-dropdown:visible').getByText('系统通知', { exact: true }).click();
    await list.getByTestId('filter-bar').getByRole('button', { name: /查\s*询/ }).click();
    await list.locator(`tr.ant-table-row[data-row-key="${id}"]`).getByText('已读').waitFor();
  });

  it('submits feedback and finds it in my feedback', async () => {
    const text = `e2e 反馈 ${Date.now()}：车辆档案导出希望支持按组织筛选`;
    await page.goto('/systemSetting/helpCenter/feedback');
    await page.getByTestId('feedback-submit').click();
    await page.getByText('请输入反馈内容').waitFor();
    await page.getByTestId('feedback-content').fill(text);
    await page.getByTestId('feedback-contact').fill('13800000001');
    // An attachment goes to /files (purpose feedback) first; its key goes with the feedback.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await page.getByTestId('feedback-page').locator('input[type="file"]').setInputFiles({ name: 'e2e-shot.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('feedback-page').locator('.ant-upload-list-item-done').first().waitFor();
    await page.getByTestId('feedback-submit').click();
    await toast(page, '提交成功，感谢您的反馈').waitFor();
    const row = page.getByTestId('feedback-list').locator('tr.ant-table-row').filter({ hasText: text });
    await row.waitFor();
    const link = row.getByTestId('feedback-attachments').getByRole('link', { name: 'e2e-shot.png' });
    const href = await link.getAttribute('href');
    const download = await page.request.get(href);
    assert.equal(download.status(), 200, 'the attachment link downloads');
    assert.deepEqual(Buffer.from(await download.body()), png);
    assert.equal(await page.getByTestId('feedback-content').inputValue(), '', 'the form clears');
    await screenshot(page, 'feedback');
  });

  it('reads the operation manual, online customer page and export records', async () => {
    await page.goto('/systemSetting/helpCenter/operationManual');
    const manual = page.getByTestId('operation-manual');
    await manual.getByRole('menuitem', { name: '如何下载导出文件' }).click();
    await page.getByTestId('manual-article').getByText('导出文件保留 7 天', { exact: false }).waitFor();
    await manual.getByRole('menuitem', { name: '登录与切换企业' }).click();
    await page.getByTestId('manual-article').getByRole('heading', { name: '切换企业', exact: true }).waitFor();
    await screenshot(page, 'operation-manual');

    await page.goto('/helpCenter/onlineCustomer');
    await page.getByTestId('customer-phone').getByText('400-820-8820').waitFor();
    await page.getByTestId('customer-hours').getByText('08:00-22:00').waitFor();

    await page.goto('/downloadRecord');
    const records = page.getByTestId('download-record');
    // The demo seed has only what the system backs: no finished export without a file.
    assert.equal(await records.getByText('导出成功').count(), 0);
    assert.equal(await records.getByText('导出中').count(), 0);
    const failed = records.locator('tr.ant-table-row').filter({ hasText: '风险报警记录导出' });
    await failed.getByText('导出失败').waitFor();
    assert.equal(await failed.getByTestId('export-download').isEnabled(), false);
    await screenshot(page, 'download-record');
  });
});
