// System-settings rules a user can see (issue 8): the role dialog (tree in its
// own scroll area, errors scrolled into view, half-checked groups surviving
// save and reopen, no role without permissions) and what 停用 means for
// organisations (root locked, the subtree and its members, enabling again).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launch, newPage, screenshot, signIn, toast } from './support.mjs';

const suffix = `${Date.now()}`.slice(-7);

/** The tree node titled exactly `title`. */
function treeNode(tree, title) {
  return tree.locator('.ant-tree-treenode').filter({ has: tree.page().locator('.ant-tree-title', { hasText: new RegExp(`^${title}$`) }) }).first();
}

/** Waits until the element `locator` points at (re-resolved each time) carries `cls`. */
async function waitForClass(locator, cls, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await locator.evaluate((el, c) => el.classList.contains(c), cls).catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${cls} never appeared`);
}

function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

describe('system-settings rules', () => {
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

  it('keeps the permission tree in its own scroll area and refuses a role without permissions', async () => {
    await page.goto('/systemSetting/roleManagement');
    const roles = page.getByTestId('role-management');
    await roles.getByRole('button', { name: '新增角色' }).click();
    const roleDialog = dialog(page, '新增角色');
    const tree = roleDialog.getByTestId('permission-tree');
    await treeNode(tree, '车辆管理').waitFor();
    const scrolls = await tree.evaluate((el) => getComputedStyle(el).overflowY === 'auto' && el.scrollHeight > el.clientHeight);
    assert.ok(scrolls, 'the tree scrolls inside the dialog');
    await roleDialog.getByRole('button', { name: '提 交' }).click();
    await roleDialog.getByText('请输入角色名称').waitFor();
    await roleDialog.getByText('请至少选择一项功能权限').waitFor();
    // The first error (the name, at the top) is scrolled into view.
    await page.waitForFunction(() => {
      const error = document.querySelector('.ant-modal .ant-form-item-explain-error');
      if (!error) return false;
      const box = error.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    });
    await screenshot(page, 'role-form-errors');
    await roleDialog.getByRole('button', { name: '取 消' }).click();
    await roleDialog.waitFor({ state: 'hidden' });
  });

  it('shows a group with only some permissions ticked as half-checked after saving and reopening', async () => {
    const name = `部分车辆${suffix}`;
    await page.goto('/systemSetting/roleManagement');
    const roles = page.getByTestId('role-management');
    await roles.getByRole('button', { name: '新增角色' }).click();
    const roleDialog = dialog(page, '新增角色');
    await roleDialog.getByLabel('角色名称').fill(name);
    const tree = roleDialog.getByTestId('permission-tree');
    await treeNode(tree, '车辆资产').locator('.ant-tree-checkbox').click();
    const group = treeNode(tree, '车辆管理').locator('.ant-tree-checkbox');
    await waitForClass(group, 'ant-tree-checkbox-indeterminate');
    await page.waitForTimeout(1600); // the dialog's confirm is debounced (console spec §2)
    await roleDialog.getByRole('button', { name: '提 交' }).click();
    await roleDialog.waitFor({ state: 'hidden' });
    const row = roles.locator('tr', { hasText: name });
    await row.getByRole('button', { name: '编辑' }).click();
    const edit = dialog(page, '编辑角色');
    const reopened = treeNode(edit.getByTestId('permission-tree'), '车辆管理').locator('.ant-tree-checkbox');
    await edit.getByLabel('角色名称').and(edit.locator(`input[value="${name}"]`)).waitFor();
    await waitForClass(reopened, 'ant-tree-checkbox-indeterminate');
    assert.equal(await reopened.evaluate((el) => el.classList.contains('ant-tree-checkbox-checked')), false, 'not fully ticked');
    await screenshot(page, 'role-half-checked');
    await edit.getByRole('button', { name: '取 消' }).click();
  });

  it('says what 停用 means, locks the root and offers to enable a disabled subtree again', async () => {
    await page.goto('/systemSetting/orgManagement');
    const orgs = page.getByTestId('org-management');
    await orgs.getByTestId('org-rules').getByText('根组织即企业本身', { exact: false }).waitFor();
    const root = orgs.locator('tr', { hasText: '演示物流有限公司' }).first();
    assert.equal(await root.getByTestId('org-root-locked').isDisabled(), true, 'the root cannot be disabled');

    // An organisation with a child: disabling asks first and says what happens.
    const parent = `E2E 停用 ${suffix}`;
    const child = `E2E 停用子 ${suffix}`;
    for (const [name, code, under] of [[parent, `E2E-D${suffix}`, undefined], [child, `E2E-DC${suffix}`, parent]]) {
      if (under) await orgs.locator('tr', { hasText: under }).first().getByRole('button', { name: '新增下级' }).click();
      else await orgs.getByRole('button', { name: '新增组织' }).click();
      const d = dialog(page, '新增组织');
      await d.getByLabel('组织名称').fill(name);
      await d.getByLabel('组织编码').fill(code);
      await d.getByRole('button', { name: '提 交' }).click();
      await d.waitFor({ state: 'hidden' });
      await orgs.locator('tr', { hasText: name }).first().waitFor();
      await page.waitForTimeout(1600);
    }
    // A duplicate name under the same parent is refused with a clear text.
    await orgs.locator('tr', { hasText: parent }).first().getByRole('button', { name: '新增下级' }).click();
    const dup = dialog(page, '新增组织');
    await dup.getByLabel('组织名称').fill(child);
    await dup.getByLabel('组织编码').fill(`E2E-DD${suffix}`);
    await dup.getByRole('button', { name: '提 交' }).click();
    await toast(page, '同一上级组织下已有同名组织').waitFor();
    await dup.getByRole('button', { name: '取 消' }).click();
    await dup.waitFor({ state: 'hidden' });

    const parentRow = orgs.locator('tr', { hasText: parent }).first();
    await parentRow.getByRole('button', { name: '停用' }).click();
    const confirm = page.locator('.ant-popover:visible');
    await confirm.getByText('其下级组织将一并停用', { exact: false }).waitFor();
    await confirm.getByText('成员将无法使用本企业', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: /确\s*定|OK/ }).click();
    const notice = orgs.getByTestId('org-disabled-notice');
    await notice.waitFor();
    const childRow = orgs.locator('tr', { hasText: child }).first();
    await childRow.getByText('停用', { exact: true }).first().waitFor();
    await screenshot(page, 'org-disabled');
    await notice.getByTestId('org-undo-disable').click();
    await parentRow.getByRole('button', { name: '停用' }).waitFor();
    await childRow.getByRole('button', { name: '停用' }).waitFor();

    // An empty organisation can be deleted.
    await childRow.getByRole('button', { name: '删除' }).click();
    await page.locator('.ant-popover:visible').getByRole('button', { name: /确\s*定|OK/ }).click();
    await toast(page, '删除成功').waitFor();
    await orgs.locator('tr', { hasText: child }).waitFor({ state: 'detached' });
  });
});
