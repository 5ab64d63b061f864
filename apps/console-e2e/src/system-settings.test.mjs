// System settings in the browser (issue 5): an administrator creates an
// organisation, a role with a limited permission set and a user in it; that
// user, signed in from a fresh browser, sees only the permitted menus.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launch, newPage, screenshot, signIn, toast } from './support.mjs';

const suffix = `${Date.now()}`.slice(-7);
const ORG_NAME = `E2E 华东分部 ${suffix}`;
const ORG_CODE = `E2E-${suffix}`;
const ROLE_NAME = `车辆专员${suffix}`;
const USER_NAME = `e2e_${suffix}`;
const USER_PHONE = `139${suffix.padStart(8, '0')}`;
const USER_PASSWORD = 'Init@2026';

/** The visible dialog with this title. */
function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

/** Opens a select (tree select or select), searches for the option and picks it. */
async function pickIn(page, select, option) {
  await select.click();
  await page.keyboard.type(option);
  const dropdown = page.locator('.ant-select-dropdown:visible');
  await dropdown.locator(`[title="${option}"]`).first().click();
}

async function pick(page, form, label, option) {
  await pickIn(page, form.locator('.ant-form-item').filter({ hasText: label }).locator('.ant-select').first(), option);
}

describe('system settings', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('creates an organisation, a vehicle-assets role and a user; the user sees only car management', async () => {
    const { context, page } = await newPage(browser);
    // Organisation.
    await signIn(page, 'demo', { at: '/systemSetting/orgManagement' });
    const orgs = page.getByTestId('org-management');
    await orgs.getByRole('button', { name: '新增组织' }).click();
    const orgDialog = dialog(page, '新增组织');
    await orgDialog.getByLabel('组织名称').fill(ORG_NAME);
    await orgDialog.getByLabel('组织编码').fill('华东');
    await orgDialog.getByText('组织编码为 1 到 32 位字母、数字、- 或 _').waitFor();
    await orgDialog.getByLabel('组织编码').fill(ORG_CODE);
    await orgDialog.getByRole('button', { name: '提 交' }).click();
    await orgDialog.waitFor({ state: 'hidden' });
    const orgRow = orgs.locator('tr', { hasText: ORG_NAME });
    await orgRow.getByText(ORG_CODE).waitFor();

    // The same code twice is refused with the server's message.
    await orgs.getByRole('button', { name: '新增组织' }).click();
    await orgDialog.getByLabel('组织名称').fill(`${ORG_NAME} 重复`);
    await orgDialog.getByLabel('组织编码').fill(ORG_CODE);
    await orgDialog.getByRole('button', { name: '提 交' }).click();
    await page.locator('.ant-message-notice').first().waitFor();
    await orgDialog.getByRole('button', { name: '取 消' }).click();
    await orgDialog.waitFor({ state: 'hidden' });

    // Role: only vehicle assets (its menu group comes along), data scope self.
    await page.goto('/systemSetting/roleManagement');
    const roles = page.getByTestId('role-management');
    await roles.getByRole('button', { name: '新增角色' }).click();
    const roleDialog = dialog(page, '新增角色');
    await roleDialog.getByLabel('角色名称').fill(ROLE_NAME);
    const tree = roleDialog.getByTestId('permission-tree');
    await tree.locator('.ant-tree-treenode').filter({ hasText: '车辆资产' }).locator('.ant-tree-checkbox').click();
    await tree.locator('.ant-tree-checkbox-indeterminate').first().waitFor();
    assert.equal(await tree.locator('.ant-tree-checkbox-checked').count(), 1, 'vehicle assets checked');
    assert.equal(await tree.locator('.ant-tree-checkbox-indeterminate').count(), 1, 'car management (granted with it) half-checked');
    await screenshot(page, 'role-form');
    await roleDialog.getByRole('button', { name: '提 交' }).click();
    await roleDialog.waitFor({ state: 'hidden' });
    await roles.locator('tr', { hasText: ROLE_NAME }).getByText('仅本人').waitFor();

    // User in the new organisation with the new role and an initial password.
    await page.goto('/systemSetting/userManagement');
    const users = page.getByTestId('user-management');
    await users.getByRole('button', { name: '新增用户' }).click();
    const userDialog = dialog(page, '新增用户');
    const form = userDialog.getByTestId('user-form');
    await form.getByLabel('姓名').fill(`测试${suffix}`);
    await form.getByLabel('账号').fill(USER_NAME);
    await form.getByLabel('手机号').fill('2391234567');
    await form.getByText('请输入正确的手机号').waitFor();
    await form.getByLabel('手机号').fill(USER_PHONE);
    await pick(page, form, '所属组织', ORG_NAME);
    await pick(page, form, '角色', ROLE_NAME);
    await form.getByLabel('初始密码').fill(USER_PASSWORD);
    await screenshot(page, 'user-form');
    await userDialog.getByRole('button', { name: '提 交' }).click();
    await userDialog.waitFor({ state: 'hidden' });
    await toast(page, '保存成功').waitFor();
    const userRow = users.locator('tr', { hasText: USER_NAME });
    await userRow.getByText(ORG_NAME).waitFor();
    await userRow.getByText(ROLE_NAME).waitFor();
    const shownPhone = await userRow.locator('td').filter({ hasText: /^1\d\d\*+\d+$/ }).innerText();
    assert.notEqual(shownPhone, USER_PHONE, 'the phone arrives masked');
    await screenshot(page, 'user-list');
    await context.close();

    // The new user, in a fresh browser context.
    const fresh = await newPage(browser);
    await fresh.page.goto('/login');
    await fresh.page.getByRole('tab', { name: '账号登录' }).click();
    await fresh.page.getByPlaceholder('请输入账号').fill(USER_NAME);
    await fresh.page.getByPlaceholder('请输入密码').fill(USER_PASSWORD);
    await fresh.page.getByPlaceholder('请输入密码').press('Enter');
    await fresh.page.waitForURL('**/dashboard');
    const nav = fresh.page.getByTestId('nav-groups');
    await nav.getByText('车辆管理', { exact: true }).waitFor();
    for (const hidden of ['系统设置', '能源管理', '财务管理']) {
      assert.equal(await nav.getByText(hidden, { exact: true }).count(), 0, `${hidden} hidden`);
    }
    await nav.getByText('车辆管理', { exact: true }).hover();
    const panel = fresh.page.getByTestId('mega-menu');
    await panel.getByText('车辆档案').waitFor();
    assert.equal(await panel.getByText('风险报警记录').count(), 0, 'risk control not granted');
    await screenshot(fresh.page, 'limited-user-menu');
    await fresh.page.goto('/systemSetting/userManagement');
    await fresh.page.waitForURL('**/401');
    await fresh.context.close();
  });

  it('moves an organisation under another (never under itself), then disables and enables it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/systemSetting/orgManagement' });
    const orgs = page.getByTestId('org-management');
    const child = `E2E 子部门 ${suffix}`;
    for (const [name, code] of [[`E2E 上级 ${suffix}`, `E2E-P${suffix}`], [child, `E2E-C${suffix}`]]) {
      await orgs.getByRole('button', { name: '新增组织' }).click();
      const d = dialog(page, '新增组织');
      await d.getByLabel('组织名称').fill(name);
      await d.getByLabel('组织编码').fill(code);
      await d.getByRole('button', { name: '提 交' }).click();
      await d.waitFor({ state: 'hidden' });
      await orgs.locator('tr', { hasText: name }).waitFor();
      // The dialog's confirm is debounced for 1.5 s (console spec §2).
      await page.waitForTimeout(1600);
    }
    await orgs.locator('tr', { hasText: child }).getByRole('button', { name: '移动' }).click();
    const moveDialog = dialog(page, '移动组织');
    await moveDialog.locator('.ant-select').click();
    await page.keyboard.type(suffix);
    const dropdown = page.locator('.ant-select-dropdown:visible');
    await dropdown.locator(`[title="E2E 上级 ${suffix}"]`).waitFor();
    assert.equal(await dropdown.locator(`[title="${child}"]`).count(), 0, 'a node is not offered as its own parent');
    await dropdown.locator(`[title="E2E 上级 ${suffix}"]`).click();
    await moveDialog.getByRole('button', { name: '提 交' }).click();
    await moveDialog.waitFor({ state: 'hidden' });
    const row = orgs.locator('tr', { hasText: child });
    // The tree refetches after the move: wait for the new level rather than read the old one.
    // New organisations without a parent go under the root (level 2): the child is now level 3.
    await row.locator('td').nth(2).filter({ hasText: /^3$/ }).waitFor();
    assert.equal(await row.locator('td').nth(2).innerText(), '3', 'now one level down');

    // Disable and enable again.
    await row.getByRole('button', { name: '停用' }).click();
    await page.locator('.ant-popover:visible').getByRole('button', { name: /确\s*定|OK/ }).click();
    await row.getByText('停用', { exact: true }).first().waitFor();
    await row.getByRole('button', { name: '启用' }).waitFor();
    await context.close();
  });
});
