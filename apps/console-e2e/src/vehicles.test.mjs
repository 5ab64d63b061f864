// Vehicle assets in the browser (issue 9): an administrator adds a vehicle with
// an 8-character new-energy plate, finds it with a batch plate search whose
// filters live in the URL (a reload keeps them), and opens its detail tabs.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, pickFirstTreeNode, screenshot, sessionToken, signIn, toast, vinFor } from './support.mjs';

const suffix = `${Date.now()}`.slice(-5);
const PLATE = `苏ED${suffix}`;

const VIN = vinFor(suffix);

function dialog(page, title) {
  return page.locator('.ant-modal:visible').filter({ hasText: title });
}

describe('vehicle assets', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('creates a vehicle, finds it with a batch plate search that survives a reload, and opens its detail tabs', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: '/carManagement/assetsData/carFiles' });
    const list = page.getByTestId('vehicle-list');
    await list.getByTestId('vehicle-add').click();
    const form = dialog(page, '新增车辆');

    // Form rules: a malformed plate and a VIN with a wrong check digit are refused.
    await form.getByLabel('车牌号').fill('苏E12');
    await form.getByLabel('车架号(VIN)').click();
    await form.getByText('请输入正确的车牌号，如 粤B12345 或新能源车牌 粤BD12345').waitFor();
    const wrongCheck = VIN.slice(0, 8) + (VIN[8] === '0' ? '1' : '0') + VIN.slice(9);
    await form.getByLabel('车架号(VIN)').fill(wrongCheck);
    await form.getByLabel('品牌').click();
    await form.getByText('车架号(VIN)第 9 位校验位不正确，请核对').waitFor();

    await form.getByLabel('车牌号').fill(PLATE);
    await form.getByLabel('车架号(VIN)').fill(VIN);
    await form.getByLabel('品牌').fill('比亚迪');
    await form.getByLabel('车型').fill('T5 纯电动厢式运输车');
    await form.getByLabel('电池容量(kWh)').fill('50.3');
    await pickFirstTreeNode(page, form.getByTestId('vehicle-org'));
    await screenshot(page, 'vehicle-form');
    await form.getByRole('button', { name: '提 交' }).click();
    await form.waitFor({ state: 'hidden' }).catch(async (err) => {
      await screenshot(page, 'vehicle-form-failed');
      throw err;
    });
    await toast(page, '车辆已新增').waitFor();

    // Batch plate search: two plates, one per line, through the batch dialog.
    await list.getByRole('button', { name: /批\s*量/ }).first().click();
    const batch = dialog(page, '批量查询');
    await batch.locator('textarea').fill(`${PLATE}\n粤B00000`);
    await batch.getByRole('button', { name: /提\s*交/ }).click();
    await list.getByRole('button', { name: /查\s*询/ }).click();
    await page.waitForURL((url) => url.searchParams.getAll('plate').length === 2);
    const row = list.locator('tr', { hasText: PLATE });
    await row.getByText(VIN).waitFor();
    assert.deepEqual(new URL(page.url()).searchParams.getAll('plate'), [PLATE, '粤B00000']);
    await list.getByText('共 1 条').waitFor(); // only the new vehicle matches

    // A reload keeps the search: the same filter shows and the same row.
    await page.reload();
    await list.locator('tr', { hasText: PLATE }).getByText(VIN).waitFor();
    assert.equal(await list.getByTestId('filter-bar').locator('input').first().inputValue(), `${PLATE},粤B00000`);
    assert.equal(await page.getByTestId('tab-bar').locator('[role=tab]').filter({ hasText: '车辆档案' }).count(), 1, 'one tab for the list');
    await screenshot(page, 'vehicle-list-batch');

    // Detail: basic, licence and terminal tabs.
    await list.locator('tr', { hasText: PLATE }).getByTestId('vehicle-plate').click();
    await page.waitForURL('**/carFiles?id=*');
    const detail = page.getByTestId('vehicle-detail');
    await detail.getByTestId('vehicle-basic').getByText('比亚迪').waitFor();
    await detail.getByTestId('vehicle-basic').getByText('50.3').waitFor();
    await detail.getByRole('tab', { name: '行驶证信息' }).click();
    await detail.getByTestId('vehicle-licence').getByText(VIN).waitFor();
    await detail.getByRole('tab', { name: '终端绑定' }).click();
    await detail.getByTestId('vehicle-terminal').getByText('暂未绑定终端').waitFor();
    await detail.getByTestId('terminal-bind').click();
    const bind = dialog(page, '绑定终端');
    await bind.getByLabel('终端号').fill(`T${suffix}0001`);
    await bind.getByLabel('SIM卡号').fill(`1440${suffix}001`);
    await bind.getByRole('button', { name: '提 交' }).click();
    await toast(page, '绑定成功').waitFor();
    await detail.getByTestId('vehicle-terminal').locator('tr', { hasText: `T${suffix}0001` }).getByText('绑定中').waitFor();
    assert.match(page.url(), /tab=terminal/);
    await screenshot(page, 'vehicle-detail-terminal');
    await context.close();
  });
  it('imports the template, then sees the error table when the same rows come again', async () => {
    const { context, page } = await newPage(browser, { acceptDownloads: true });
    await signIn(page, 'demo', { at: '/carManagement/assetsData/carFiles' });
    const list = page.getByTestId('vehicle-list');
    await list.getByTestId('vehicle-import').click();
    let importDialog = dialog(page, '导入车辆');
    const [download] = await Promise.all([page.waitForEvent('download'), importDialog.getByTestId('import-template').click()]);
    const template = join(mkdtempSync(join(tmpdir(), 'fleetdesk-e2e-')), download.suggestedFilename());
    await download.saveAs(template);
    assert.match(download.suggestedFilename(), /\.xlsx$/);

    // The template's example row imports as it is.
    await importDialog.locator('input[type=file]').setInputFiles(template);
    await importDialog.getByRole('button', { name: '导 入' }).click();
    await toast(page, '导入成功，共 1 条').waitFor();
    await importDialog.waitFor({ state: 'hidden' });

    // The same rows again: nothing is written and the error table names the row, column and reason.
    await list.getByTestId('vehicle-import').click();
    importDialog = dialog(page, '导入车辆');
    await importDialog.locator('input[type=file]').setInputFiles(template);
    await importDialog.getByRole('button', { name: '导 入' }).click();
    const errors = importDialog.getByTestId('import-errors');
    await errors.getByText(/导入失败，共 \d+ 处错误/).waitFor();
    const plateError = errors.locator('tr', { hasText: '车牌号' });
    await plateError.first().waitFor();
    assert.match(await plateError.first().innerText(), /2/); // the example is row 2
    await screenshot(page, 'vehicle-import-errors');
    await context.close();
  });

  it('exports the filtered list and downloads the file from export records', async () => {
    const { context, page } = await newPage(browser, { acceptDownloads: true });
    await signIn(page, 'demo', { at: `/carManagement/assetsData/carFiles?plate=${encodeURIComponent(PLATE)}` });
    const list = page.getByTestId('vehicle-list');
    await list.locator('tr', { hasText: PLATE }).waitFor();
    await list.getByTestId('export-button').click();
    await toast(page, '导出结果请到右上方个人信息下【导出记录】中查看下载结果').waitFor();

    await page.goto('/downloadRecord');
    const row = page.locator('tr', { hasText: '车辆档案' }).first();
    await row.getByText('导出成功').waitFor();
    await row.getByText('1 条').waitFor(); // one vehicle matched the filter
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('export-download').click()]);
    assert.match(download.suggestedFilename(), /\.xlsx$/);
    const saved = join(mkdtempSync(join(tmpdir(), 'fleetdesk-e2e-')), 'export.xlsx');
    await download.saveAs(saved);
    const { size } = await import('node:fs').then((fs) => fs.statSync(saved));
    assert.ok(size > 1000, `an xlsx, not an error page (${size} bytes)`);
    await screenshot(page, 'vehicle-export-record');
    await context.close();
  });

  it('views a driver licence image through the file-link viewer, which reads 暂无文件访问权限 without the permission', async () => {
    // A demo driver whose documents were uploaded (the seed gives the first
    // drivers images), within the operator's reach too.
    const ops = await newPage(browser);
    await signIn(ops.page, 'demo_ops');
    const drivers = await callApi('GET', '/api/v1/drivers?page=1&size=100', { token: await sessionToken(ops.context) });
    const driver = drivers.data.list.find((d) => d.licenceFront?.name);
    assert.ok(driver, 'a demo driver with a licence image that demo_ops reaches');
    const path = `/carManagement/assetsData/driverManagement?name=${encodeURIComponent(driver.name)}`;

    const { context, page } = await newPage(browser);
    await signIn(page, 'demo', { at: path });
    await page.getByTestId('driver-name').filter({ hasText: driver.name }).first().click();
    const detail = page.getByTestId('driver-detail');
    await detail.getByTestId('driver-image').first().click();
    await page.getByText('查看证件信息将被记录，确定查看吗？').waitFor();
    await page.locator('.ant-modal-confirm').getByRole('button', { name: /确\s*定/ }).click();
    const preview = page.locator('.ant-image-preview img');
    await preview.waitFor();
    // The signed link serves the stored image: the browser decoded it.
    await page.waitForFunction(() => {
      const img = document.querySelector('.ant-image-preview img');
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
    });
    await screenshot(page, 'driver-licence-viewer');
    await context.close();

    // An operator without as:sensitive:view sees the button disabled with the spec's text.
    await ops.page.goto(path);
    await ops.page.getByTestId('driver-name').filter({ hasText: driver.name }).first().click();
    const denied = ops.page.getByTestId('driver-detail').getByRole('button', { name: '暂无文件访问权限' }).first();
    await denied.waitFor();
    assert.equal(await denied.isDisabled(), true);
    await ops.context.close();
  });
});
