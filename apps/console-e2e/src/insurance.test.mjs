// Insurance policies in the browser (issue 23): the demo admin opens 保险管理
// (the demo fleet's two years of policies), finds a policy expiring within 30
// days, opens its detail with the coverage items, goes to 保单下载 and
// downloads its PDF through a short-lived signed link; a member holding the
// insurance pages but not the file permission sees 暂无文件访问权限 instead.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE_URL, callApi, launch, newPage, screenshot, sessionToken, signIn } from './support.mjs';

const LIST = '/carManagement/vehicleManagement/carGuaranteeSlip';
const DOCUMENTS = '/carManagement/vehicleManagement/insuranceOrder';

describe('insurance policies', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('opens an expiring policy and downloads its PDF through a signed link', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const expiring = await callApi('GET', '/api/v1/maintenance/insurance/policies?statuses=EXPIRING&kinds=COMMERCIAL&page=1&size=5', { token });
    assert.equal(expiring.code, 200, expiring.msg);
    const target = expiring.data.list[0];
    assert.ok(target, 'the demo fleet has a commercial policy expiring within 30 days');
    assert.ok(target.documents.length > 0, 'it has its document');

    await page.goto(`${LIST}?statuses=EXPIRING&plateNumbers=${encodeURIComponent(target.plateNumber)}`);
    const list = page.getByTestId('policy-list');
    const row = list.locator('.ant-table-row').filter({ hasText: target.policyNo });
    await row.waitFor();
    await row.getByTestId('policy-status').filter({ hasText: '即将到期' }).waitFor();
    await screenshot(page, 'insurance-list');

    await row.getByTestId('policy-view').click();
    const detail = page.getByTestId('policy-detail');
    await detail.waitFor();
    await detail.getByTestId('coverage-table').getByText('第三者责任保险').waitFor();
    await detail.getByText(/录入保单/).first().waitFor();
    await screenshot(page, 'insurance-detail');
    await page.locator('.ant-drawer-close').click();

    await row.getByTestId('policy-documents-open').click();
    await page.waitForURL(`**${DOCUMENTS}?id=*`);
    const documents = page.getByTestId('insurance-order');
    await documents.getByText(target.policyNo, { exact: true }).waitFor();
    const linked = page.waitForResponse((r) => r.url().includes('/documents/link') && r.request().method() === 'GET');
    const opened = context.waitForEvent('page');
    await documents.getByRole('button', { name: '下载保单' }).first().click();
    const link = await (await linked).json();
    assert.equal(link.code, 200, link.msg);
    assert.match(link.data.url, /^\/api\/v1\/files\/download\?key=.+&expires=\d+&sig=[0-9a-f]+$/);
    await opened;
    // The link the browser was given serves the PDF itself.
    const file = await fetch(`${BASE_URL}${link.data.url}`);
    assert.equal(file.status, 200);
    const bytes = Buffer.from(await file.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'the document is a PDF');
    assert.ok(bytes.toString('latin1').trimEnd().endsWith('%%EOF'));
    await screenshot(page, 'insurance-documents');
    await context.close();
  });

  it('shows 暂无文件访问权限 to a member without the file permission', async () => {
    // The operations role gains the insurance pages, not their files.
    const admin = await newPage(browser);
    await signIn(admin.page, 'demo');
    const adminToken = await sessionToken(admin.context);
    const roles = await callApi('GET', '/api/v1/system/roles?page=1&size=50', { token: adminToken });
    assert.equal(roles.code, 200, roles.msg);
    const ops = roles.data.list.find((r) => r.name === '车辆运营');
    assert.ok(ops, 'the demo has the operations role');
    assert.ok(!ops.permissionValues.includes('as:insurance:file'));
    const changed = await callApi('PUT', `/api/v1/system/roles/${ops.id}`, {
      token: adminToken,
      body: {
        name: ops.name,
        description: ops.description,
        permissionValues: [...ops.permissionValues, 'as:insurance'],
        dataScope: ops.dataScope,
        dataScopeOrgIds: ops.dataScopeOrgIds,
        status: ops.status,
      },
    });
    assert.equal(changed.code, 200, changed.msg);
    await admin.context.close();

    const { context, page } = await newPage(browser);
    await signIn(page, 'demo_ops');
    const token = await sessionToken(context);
    const policies = await callApi('GET', '/api/v1/maintenance/insurance/policies?page=1&size=5', { token });
    assert.equal(policies.code, 200, policies.msg);
    const target = policies.data.list.find((p) => p.documents.length > 0);
    assert.ok(target, 'the member sees policies of their organisation');
    const refused = await callApi('GET', `/api/v1/maintenance/insurance/policies/${target.id}/documents/link?key=${encodeURIComponent(target.documents[0].key)}`, { token });
    assert.equal(refused.code, 9999, 'the gateway refuses the link too');

    await page.goto(`${DOCUMENTS}?id=${encodeURIComponent(target.id)}`);
    const documents = page.getByTestId('insurance-order');
    await documents.getByText(target.policyNo, { exact: true }).waitFor();
    const button = documents.getByRole('button', { name: '暂无文件访问权限' }).first();
    await button.waitFor();
    assert.ok(await button.isDisabled(), 'the download is disabled');
    assert.equal(await documents.getByRole('button', { name: '下载保单' }).count(), 0);
    await screenshot(page, 'insurance-no-file-permission');
    await context.close();
  });
});
