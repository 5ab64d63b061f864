// What an administrator maintains on an organisation (orgManagement): whether
// it is a company of its own and the cities it serves (服务区域). Saved in the
// form, they come back when it is edited again and reach the shared lookups
// (the companies, the serve organisations).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, toast } from './support.mjs';

const suffix = `${Date.now()}`.slice(-7);
const ORG_NAME = `E2E 深圳子公司 ${suffix}`;
const ORG_CODE = `E2E-SZ-${suffix}`;

function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

/** Checks the option titled `title` in the open cascader's column `column` (0 = provinces). */
async function check(page, column, title) {
  const option = page.locator('.ant-cascader-dropdown:visible .ant-cascader-menu').nth(column).locator(`.ant-cascader-menu-item[title="${title}"]`);
  await option.locator('.ant-cascader-checkbox').click();
  await option.locator('.ant-cascader-checkbox-checked').waitFor();
}

describe('organisation settings', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('marks an organisation a company and sets the cities it serves; both come back and reach the lookups', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/systemSetting/orgManagement' });
    const orgs = page.getByTestId('org-management');

    await orgs.getByRole('button', { name: '新增组织' }).click();
    const add = dialog(page, '新增组织');
    await add.getByLabel('组织名称').fill(ORG_NAME);
    await add.getByLabel('组织编码').fill(ORG_CODE);
    await add.getByTestId('org-is-company').click();

    // 广东省 → 深圳市, and 北京市 (a municipality is a city itself).
    await add.getByTestId('org-serve-areas').click();
    await page.locator('.ant-cascader-menu-item[title="广东省"]').click();
    await check(page, 1, '深圳市');
    await check(page, 0, '北京市');
    await page.keyboard.press('Escape');
    await screenshot(page, 'org-serve-areas');
    await add.getByRole('button', { name: '提 交' }).click();
    await add.waitFor({ state: 'hidden' });
    await toast(page, '保存成功').waitFor();

    const row = orgs.locator('tr', { hasText: ORG_NAME });
    await row.getByText('公司', { exact: true }).waitFor();

    // Edited again: the flag and the cities come back as names.
    await row.getByRole('button', { name: '编辑' }).click();
    const edit = dialog(page, '编辑组织');
    const areas = edit.getByTestId('org-serve-areas');
    await areas.getByText('深圳市').waitFor();
    await areas.getByText('北京市').waitFor();
    assert.equal(await edit.getByTestId('org-is-company').getAttribute('aria-checked'), 'true');

    // Drop 北京市 and keep 深圳市.
    await areas.locator('.ant-select-selection-item', { hasText: '北京市' }).locator('.ant-select-selection-item-remove').click();
    await edit.getByRole('button', { name: '提 交' }).click();
    await edit.waitFor({ state: 'hidden' });

    // The shared lookups follow.
    const token = await sessionToken(context);
    const serveOrgs = await callApi('GET', '/api/v1/serve-orgs', { token });
    assert.equal(serveOrgs.code, 200, serveOrgs.msg);
    const served = serveOrgs.data.find((o) => o.name === ORG_NAME);
    assert.deepEqual(
      served?.areas.map((a) => a.cityName),
      ['深圳市'],
    );
    const companies = await callApi('GET', '/api/v1/orgs/companies', { token });
    assert.ok(
      companies.data.some((c) => c.name === ORG_NAME),
      'listed among the companies',
    );
    await context.close();
  });
});
