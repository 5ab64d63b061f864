// The shell as a new user finds it (issue 8): customer service and approvals
// for demo_ops, forbidden pages without a tab, the tab bar scrolling to the
// active tab, the sidebar search across every menu, the language switch
// keeping typed filters, the error boundary and the upload failure texts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { afterMotion, launch, newPage, screenshot, signIn, toast } from './support.mjs';

describe('shell for demo_ops (no system settings)', () => {
  let browser;
  let context;
  let page;
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser));
    await signIn(page, 'demo_ops');
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });

  it('shows the approval icon to a user who may view approvals', async () => {
    await page.getByTestId('approval-badge').click();
    await page.waitForURL('**/approve');
    await page.getByTestId('nav-groups').waitFor();
    assert.equal(new URL(page.url()).pathname, '/approve', 'not /401');
  });

  it('opens customer service from the float: the same line on the float and the page', async () => {
    await page.goto('/dashboard');
    await page.getByTestId('service-float-button').hover();
    const float = page.getByTestId('service-float');
    const floatPhone = await float.getByTestId('service-float-phone').innerText();
    assert.match(floatPhone, /400-820-8820/);
    await float.getByRole('link').click();
    await page.waitForURL('**/helpCenter/onlineCustomer');
    const service = page.getByTestId('online-customer');
    await service.waitFor();
    assert.equal(await service.getByTestId('customer-phone').innerText(), '400-820-8820');
    assert.equal(await service.getByTestId('customer-hours').innerText(), '08:00-22:00');
    assert.match(await service.getByTestId('customer-email').innerText(), /@/);
    // Outside 08:00-22:00 (China time) it says when chat opens.
    const open = (await service.getByTestId('customer-status').innerText()) === '在线服务中';
    assert.equal(await service.getByTestId('customer-opens').count(), open ? 0 : 1);
    if (!open) assert.match(await service.getByTestId('customer-opens').innerText(), /08:00 开放/);
    await screenshot(page, 'online-customer-demo-ops');
  });

  it('shows a forbidden page reached by its address as no-permission, without a tab', async () => {
    await page.goto('/systemSetting/orgManagement');
    await page.waitForURL('**/401');
    await page.getByTestId('no-permission').waitFor();
    const tabs = page.getByTestId('tab-bar').getByRole('tab');
    const titles = (await page.getByTestId('tab-bar').count()) ? await tabs.allInnerTexts() : [];
    assert.ok(!titles.includes('组织管理'), `no tab for a forbidden page: ${titles}`);
  });
});

describe('shell for demo (every permission)', () => {
  let browser;
  let context;
  let page;
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser, { viewport: { width: 1100, height: 800 } }));
    await signIn(page, 'demo');
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });

  it('scrolls the active tab into view when the tab bar overflows', async () => {
    const pages = [
      '/systemSetting/orgManagement', '/systemSetting/roleManagement', '/systemSetting/userManagement', '/systemSetting/loginLog',
      '/systemSetting/helpCenter/operationManual', '/systemSetting/helpCenter/feedback', '/helpCenter/onlineCustomer',
      '/carManagement/assetsData/carFiles', '/carManagement/assetsData/driverManagement', '/carManagement/assetsMonitor/quicklyFindCar',
      '/carManagement/riskControll/riskAlarmRecord', '/carManagement/vehicleManagement/trafficViolations',
    ];
    for (const path of pages) {
      await page.goto(path);
      await page.getByTestId('tab-bar').locator(`[data-path="${path}"]`).waitFor();
    }
    const strip = page.locator('.fd-tabs__strip');
    const overflow = await strip.evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.ok(overflow, 'enough tabs to overflow');
    const visible = async () =>
      strip.evaluate((el) => {
        const bar = el.getBoundingClientRect();
        const tab = el.querySelector('.is-active')?.getBoundingClientRect();
        return !!tab && tab.left >= bar.left - 1 && tab.right <= bar.right + 1;
      });
    // The last one opened is active and in view.
    await page.waitForFunction(() => {
      const el = document.querySelector('.fd-tabs__strip');
      const tab = el?.querySelector('.is-active')?.getBoundingClientRect();
      const bar = el?.getBoundingClientRect();
      return !!tab && !!bar && tab.right <= bar.right + 1 && tab.left >= bar.left - 1;
    });
    assert.ok(await visible());
    // Back to the first page through the menu (not the tab): its tab scrolls into view.
    await page.goto('/systemSetting/roleManagement');
    await page.getByTestId('sidebar').getByText('组织管理').click();
    await page.waitForURL('**/systemSetting/orgManagement');
    // The URL changes before the tab bar re-renders: wait for its tab to be the active one.
    await page.waitForFunction(() => {
      const el = document.querySelector('.fd-tabs__strip');
      const active = el?.querySelector('.is-active');
      const tab = active?.getBoundingClientRect();
      const bar = el?.getBoundingClientRect();
      return active?.getAttribute('data-path') === '/systemSetting/orgManagement' &&
        !!tab && !!bar && tab.left >= bar.left - 1 && tab.right <= bar.right + 1;
    });
    assert.equal(await page.locator('.fd-tabs__strip .is-active').getAttribute('data-path'), '/systemSetting/orgManagement');
    await screenshot(page, 'tab-bar-overflow');
  });

  it('searches every menu the user may open from the sidebar, not only the current group', async () => {
    await page.goto('/systemSetting/orgManagement');
    const sidebar = page.getByTestId('sidebar');
    const search = sidebar.getByPlaceholder('搜索菜单');
    await search.fill('车辆档案');
    await search.press('Enter');
    const found = sidebar.getByRole('menuitem', { name: '车辆档案' });
    await found.waitFor();
    // The matching groups unfold: click once they have.
    await afterMotion(sidebar);
    await found.click();
    await page.waitForURL('**/carManagement/assetsData/carFiles');
  });

  it('keeps what the user typed in the filter bar when the language changes', async () => {
    await page.goto('/systemSetting/userManagement');
    // Typed once the page has loaded, as a user does (on a loaded machine a
    // late first render could otherwise come after the typing).
    await page.getByTestId('user-management').locator('tbody tr.ant-table-row').first().waitFor();
    const filter = page.getByTestId('user-management').getByTestId('filter-bar');
    const input = filter.locator('input').first();
    await input.fill('张三');
    await page.getByTestId('avatar').hover();
    // The menu zooms in: click its language once it has.
    await afterMotion(page.locator('.ant-popover', { has: page.getByTestId('user-menu') }));
    await page.getByTestId('lang-en-US').click();
    await filter.getByText('Search', { exact: true }).waitFor();
    assert.equal(await input.inputValue(), '张三');
    await page.getByTestId('avatar').hover();
    await afterMotion(page.locator('.ant-popover', { has: page.getByTestId('user-menu') }));
    await page.getByTestId('lang-zh-CN').click();
    await filter.getByText('查 询').or(filter.getByText('查询')).first().waitFor();
    assert.equal(await input.inputValue(), '张三');
  });

  it('shows a page that throws inside the layout with a retry, and logs the error with its component', async () => {
    // A malformed answer makes the manual page throw while rendering.
    await page.route('**/api/v1/help/articles', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ code: 200, msg: 'ok', data: 42 }) }),
    );
    await page.goto('/systemSetting/helpCenter/operationManual');
    const failed = page.getByTestId('page-error');
    await failed.waitFor();
    await page.getByTestId('nav-groups').waitFor(); // the shell still stands
    await screenshot(page, 'page-error-boundary');
    await page.getByRole('button', { name: '错误日志' }).click();
    const log = page.locator('.ant-modal:visible');
    await log.getByText('is not iterable', { exact: false }).first().waitFor();
    assert.match(await log.locator('pre').first().innerText(), /OperationManual|Pages|at /);
    await log.getByRole('button', { name: '关闭' }).last().click();
    await page.unroute('**/api/v1/help/articles');
    await failed.getByRole('button', { name: /重\s*试/ }).click();
    await page.getByTestId('operation-manual').waitFor();
  });
});

describe('upload failure texts (console spec §8)', () => {
  let browser;
  let context;
  let page;
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser));
    await signIn(page, 'demo_ops', { at: '/systemSetting/helpCenter/feedback' });
    await page.getByTestId('feedback-page').waitFor();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });
  const choose = (name, buffer) =>
    page.getByTestId('feedback-page').locator('input[type="file"]').setInputFiles({ name, mimeType: 'image/png', buffer });

  it('says 上传失败，请重新上传 when the network fails', async () => {
    await page.route('**/api/v1/files', (route) => route.abort('connectionreset'));
    await choose('net.png', png);
    await toast(page, '上传失败，请重新上传').waitFor();
    await page.unroute('**/api/v1/files');
  });

  it("says the server's message for a refusal, and 上传失败 when it gave none", async () => {
    await page.route('**/api/v1/files', (route) =>
      route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ code: 4009, msg: '', data: null }) }),
    );
    await choose('quiet.png', png);
    await page.locator('.ant-message-notice').getByText('上传失败', { exact: true }).waitFor();
    await page.unroute('**/api/v1/files');
    // The real server checks the content: a program renamed .png is refused with its text.
    await choose('renamed.png', Buffer.from('MZ\x90\x00 this is not a picture'));
    await toast(page, '文件内容不是图片，请上传 png/jpeg/jpg/webp/gif 格式的图片').waitFor();
  });
});
