// The console rules of issue 20, checked in the browser: each list's key figures
// on the first screen at 1440 px with its horizontal scrollbar in view, the
// charging chart's days in Beijing time from a browser in Los Angeles, the spec's
// failure texts for export and import, the dynamic form's 1000 ms revalidation,
// and content on every built page for the demo admin after a fresh start.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launch, newPage, screenshot, signIn, toast, until } from './support.mjs';

const ROWS = '.ant-table-tbody tr.ant-table-row';
const CHARGE = '/energyManagement/charge';

/**
 * Each list page and the column headers of its key figures (console spec §2, issue 20);
 * a third entry marks a rule the product does not meet yet (reported as a todo).
 */
const LISTS = [
  ['/carManagement/assetsData/carFiles', ['车牌号', '车辆状态']],
  ['/carManagement/assetsData/driverManagement', ['姓名', '司机状态']],
  ['/carManagement/assetsData/carUsedRecord/carRentRecord', ['车牌号', '记录状态']],
  ['/carManagement/assetsData/carUsedRecord/rentForSaleRecord', ['车牌号', '记录状态']],
  ['/carManagement/assetsData/addPrivateCar', ['车牌号', '审核状态']],
  ['/carManagement/assetsData/bindingLog', ['车牌号', '绑定状态']],
  [`${CHARGE}/chargeManagement/electricCard`, ['卡内余额(元)', '状态']],
  [`${CHARGE}/accountManagement/juniorElectricCard`, ['卡内余额(元)', '状态']],
  [`${CHARGE}/accountManagement/accountBalanceAllocation`, ['可用余额(元)']],
  [`${CHARGE}/chargeManagement/consumeRecord`, ['车牌号', '实付金额(元)', '状态']],
  [`${CHARGE}/chargeReconciliation`, ['应付金额(元)', '状态']],
  ['/systemSetting/userManagement', ['姓名', '状态']],
  // 处理状态 starts at x 1447 at 1440 px, past the window's right edge.
  ['/carManagement/riskControll/riskAlarmRecord', ['车牌号', '报警等级', '处理状态']],
  ['/carManagement/assetsReport/operationLog/dailyLog', ['车牌号', '里程(km)']],
  ['/carManagement/assetsReport/operationLog/monthlyLog', ['车牌号', '里程(km)']],
];

/**
 * Where each key header and its first cell sit against what the window shows
 * without scrolling: inside the table's visible part (not under a fixed column,
 * not past the right edge) and above the window's bottom; and whether the
 * table's horizontal scrollbar is in view when the table is wider than its box.
 */
function firstScreenProblems(labels) {
  const shown = (el) => !!el && el.getClientRects().length > 0;
  const problems = [];
  const W = window.innerWidth;
  const H = window.innerHeight;
  const ths = [...document.querySelectorAll('.ant-table-thead th')].filter(shown);
  let table;
  for (const label of labels) {
    const th = ths.find((h) => h.innerText.trim() === label) ?? ths.find((h) => h.innerText.trim().startsWith(label));
    if (!th) {
      problems.push(`no column ${label}`);
      continue;
    }
    table = th.closest('.ant-table');
    const box = (table.querySelector('.ant-table-body') ?? table.querySelector('.ant-table-content')).getBoundingClientRect();
    const row = th.closest('tr');
    const fixedRight = [...row.querySelectorAll('th.ant-table-cell-fix-right')].filter((c) => c !== th).map((c) => c.getBoundingClientRect().left);
    const fixedLeft = th.classList.contains('ant-table-cell-fix-left')
      ? []
      : [...row.querySelectorAll('th.ant-table-cell-fix-left')].map((c) => c.getBoundingClientRect().right);
    const left = Math.max(box.left, ...fixedLeft);
    const right = Math.min(box.right, W, ...fixedRight);
    const cell = table.querySelector('.ant-table-tbody tr.ant-table-row')?.children[th.cellIndex];
    for (const [what, el] of [['header', th], ['first cell', cell]]) {
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.left < left - 1 || r.right > right + 1) problems.push(`${label} ${what} spans x ${Math.round(r.left)}…${Math.round(r.right)}, visible ${Math.round(left)}…${Math.round(right)}`);
      if (r.top < 0 || r.bottom > H + 1) problems.push(`${label} ${what} spans y ${Math.round(r.top)}…${Math.round(r.bottom)}, window 0…${H}`);
    }
  }
  if (table) {
    const body = table.querySelector('.ant-table-body') ?? table.querySelector('.ant-table-content');
    if (body.scrollWidth > body.clientWidth + 1) {
      const bar = table.parentElement.querySelector('.ant-table-sticky-scroll');
      const barBox = shown(bar) ? bar.getBoundingClientRect() : undefined;
      const barInView = !!barBox && barBox.height > 0 && barBox.top >= 0 && barBox.bottom <= H + 1;
      const bodyBottom = body.getBoundingClientRect().bottom;
      if (!barInView && bodyBottom > H + 1) {
        problems.push(`horizontal scrollbar out of view: no sticky bar in the window, the table's own ends at y ${Math.round(bodyBottom)} > ${H}`);
      }
    }
  }
  return problems;
}

describe('console spec rules (issue 20) for the demo admin', () => {
  let browser;
  let context;
  let page;
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser, { viewport: { width: 1440, height: 900 } }));
    await signIn(page, 'demo');
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });

  for (const [path, labels, todo] of LISTS) {
    it(`shows ${labels.join(', ')} on the first screen at 1440 px, the horizontal scrollbar in view: ${path}`, { todo }, async () => {
      await page.goto(path);
      await page.locator(ROWS).first().waitFor({ timeout: 15_000 }).catch(() => undefined);
      await page.locator('.ant-table-thead th').first().waitFor();
      // antd mounts the sticky scrollbar after its resize observer has measured the
      // table, so a first look may come before it: look again until the layout settles.
      let problems = await page.evaluate(firstScreenProblems, labels);
      for (let tries = 0; problems.length && tries < 20; tries++) {
        await page.waitForTimeout(250);
        problems = await page.evaluate(firstScreenProblems, labels);
      }
      if (problems.length) await screenshot(page, `first-screen${path.replaceAll('/', '-')}`);
      assert.deepEqual(problems, []);
    });
  }

  it('says 导出失败 when an export fails without a reason (a 500, or a failure envelope with no msg)', async () => {
    await page.goto('/carManagement/assetsData/carFiles');
    const list = page.getByTestId('vehicle-list');
    await list.locator(ROWS).first().waitFor();
    const answers = [
      { status: 500, contentType: 'text/plain', body: 'Internal Server Error' },
      { status: 200, contentType: 'application/json', body: JSON.stringify({ code: 5000, msg: '', data: null }) },
    ];
    for (const answer of answers) {
      await page.route('**/api/v1/vehicles/export', (route) => route.fulfill(answer));
      await list.getByTestId('export-button').click();
      await toast(page, '导出失败').waitFor();
      assert.equal(await toast(page, '请求数据异常').count(), 0);
      await page.unroute('**/api/v1/vehicles/export');
      await toast(page, '导出失败').waitFor({ state: 'detached', timeout: 10_000 });
    }
  });

  it('says 上传失败，请重新上传 when the vehicle import\'s upload fails in transport', async () => {
    await page.goto('/carManagement/assetsData/carFiles');
    const list = page.getByTestId('vehicle-list');
    await list.getByTestId('vehicle-import').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: '导入车辆' });
    await page.route('**/api/v1/vehicles/import', (route) => route.abort('connectionreset'));
    await dialog.locator('input[type=file]').setInputFiles({
      name: 'vehicles.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer: Buffer.from('PK\x03\x04 not really a workbook'),
    });
    await dialog.getByRole('button', { name: /导\s*入/ }).click();
    await toast(page, '上传失败，请重新上传').waitFor();
    assert.equal(await toast(page, '服务异常，请更换查询条件或稍后重试').count(), 0);
    await page.unroute('**/api/v1/vehicles/import');
    await dialog.getByRole('button', { name: /取\s*消/ }).click();
  });

  it('checks a changed field of the alarm rule form again about 1000 ms after typing stops, not at once', async () => {
    await page.goto('/carManagement/riskControll/riskAlarmRecord');
    await page.getByTestId('open-rules').click();
    const drawer = page.getByTestId('rules-drawer');
    await drawer.getByTestId('rule-add').click();
    const form = page.locator('.ant-modal:visible').filter({ hasText: '新增规则' });
    // A time outside 00:00–23:59: a number field cannot be used, antd's InputNumber never
    // hands an out-of-range typed value to the form (it clamps it on blur instead).
    const start = form.getByLabel('开始时间');
    // Picked again while the kind's fields have not appeared (a click can land on a
    // dropdown still animating in under load).
    await until('the night-driving fields', async () => {
      if (await start.isVisible()) return true;
      await form.getByLabel('规则类型').click();
      const option = page.locator('.ant-select-dropdown:visible').last().locator('.ant-select-item-option', { hasText: '夜间行驶' });
      await option.click({ timeout: 5_000 }).catch(() => undefined);
      return start.isVisible();
    }, 30_000, 500);
    // Timed in the page: when the last keystroke landed and when the message appeared.
    await start.evaluate((input) => {
      window.__typed = 0;
      window.__shown = 0;
      input.addEventListener('input', () => { window.__typed = performance.now(); window.__shown = 0; });
      new MutationObserver(() => {
        if (!window.__shown && document.body.innerText.includes('时间格式应为 HH:mm')) window.__shown = performance.now();
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await start.fill('');
    await start.pressSequentially('25:99', { delay: 50 });
    const message = form.getByText('时间格式应为 HH:mm');
    await message.waitFor();
    const { typed, shown } = await page.evaluate(() => ({ typed: window.__typed, shown: window.__shown }));
    const delay = shown - typed;
    assert.ok(typed > 0 && shown > 0, `typed ${typed}, shown ${shown}`);
    assert.ok(delay >= 950 && delay < 3000, `the message appeared ${Math.round(delay)} ms after the last keystroke`);
    // A valid time clears it, again only after the pause.
    await start.fill('23:00');
    await page.waitForTimeout(300);
    assert.equal(await message.count(), 1, 'still shown 300 ms after the fix');
    await message.waitFor({ state: 'detached' });
    await screenshot(page, 'rule-form-revalidate');
    await form.getByRole('button', { name: /取\s*消/ }).click();
  });
});

/** A date's day in `timeZone` as MM-DD. */
function dayIn(timeZone, date = new Date()) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, month: '2-digit', day: '2-digit' }).formatToParts(date).map((p) => [p.type, p.value]),
  );
  return `${parts.month}-${parts.day}`;
}

/**
 * Los Angeles, unless its date is Beijing's right now (08:00–16:00 UTC): then a
 * zone whose date differs, so a day taken in the browser's zone always shows.
 */
const BROWSER_ZONE = ['America/Los_Angeles', 'Pacific/Pago_Pago', 'Pacific/Kiritimati'].find((zone) => dayIn(zone) !== dayIn('Asia/Shanghai'));

describe(`charging dashboard from a browser in ${BROWSER_ZONE}`, () => {
  let browser;
  let context;
  let page;
  let requested;
  before(async () => {
    browser = await launch();
    ({ context, page } = await newPage(browser, { timezoneId: BROWSER_ZONE }));
    await signIn(page, 'demo');
    assert.equal(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), BROWSER_ZONE);
    const asked = page.waitForRequest((r) => r.url().includes('/api/v1/charging/dashboard'));
    await page.goto(`${CHARGE}/dashboard`);
    requested = new URL((await asked).url()).searchParams;
    await page.getByTestId('dashboard-trend').locator('canvas').first().waitFor();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
  });

  /** The category the axis tooltip names with the pointer `x` px into the chart. */
  async function labelAt(x) {
    const chart = page.getByTestId('dashboard-trend');
    const box = await chart.boundingBox();
    const text = await until('the axis tooltip', async () => {
      await page.mouse.move(box.x + (x < 0 ? box.width + x : x), box.y + box.height / 2);
      const inner = await chart.innerText();
      return /\d{2}-\d{2}/.test(inner) ? inner : undefined;
    }, 15_000, 300);
    return text.match(/\d{2}-\d{2}/)[0];
  }
  // The grid leaves 56 px each side: 3 px inside it is the first or the last day.
  const FIRST_DAY_X = 56 + 3;
  const LAST_DAY_X = -(56 + 3);

  it("labels the daily chart's days as the Beijing days asked for, not a day early", async () => {
    const start = requested.get('timeRangeStart');
    const end = requested.get('timeRangeEnd');
    assert.match(`${start} ${end}`, /^\d{4}-\d{2}-\d{2} \d{4}-\d{2}-\d{2}$/);
    assert.equal(await labelAt(FIRST_DAY_X), start.slice(5));
    assert.equal(await labelAt(LAST_DAY_X), end.slice(5));
  });

  it("ends the default period (this month so far) on today's Beijing date", async () => {
    const today = dayIn('Asia/Shanghai');
    await screenshot(page, 'charge-dashboard-other-zone');
    assert.equal(requested.get('timeRangeEnd')?.slice(5), today, `asked for ${requested.get('timeRangeStart')}…${requested.get('timeRangeEnd')}`);
    assert.equal(await labelAt(LAST_DAY_X), today);
  });
});

/**
 * Every built page (not the 即将上线 placeholders) and what shows its content
 * (table rows unless said otherwise); a third entry would mark a page known
 * empty after a fresh start (reported as a todo until the demo data covers it).
 */
const BUILT_PAGES = [
  ['/dashboard', '[data-testid="workbench-notices"] >> text=/\\d{2}-\\d{2} \\d{2}:\\d{2}/'],
  '/carManagement/assetsData/carFiles',
  '/carManagement/assetsData/driverManagement',
  '/carManagement/assetsData/carUsedRecord/carRentRecord',
  '/carManagement/assetsData/carUsedRecord/purchaseRecord',
  '/carManagement/assetsData/carUsedRecord/carReplaceRecord',
  '/carManagement/assetsData/carUsedRecord/rentForSaleRecord',
  ['/carManagement/assetsData/addPrivateCar', ROWS],
  '/carManagement/assetsData/bindingLog',
  ['/carManagement/assetsMonitor/fenceDashboard', '[data-testid="dashboard-days"] canvas'],
  '/carManagement/assetsMonitor/managePage',
  '/carManagement/assetsMonitor/crossRailPage',
  '/carManagement/assetsMonitor/singInSetPage',
  ['/carManagement/assetsMonitor/quicklyFindCar', '[data-testid="status-legend"] >> text=/车辆总数 [1-9]/'],
  '/carManagement/assetsMonitor/temperatureMonitor',
  ['/carManagement/assetsMonitor/authorizationRecord', ROWS],
  '/carManagement/assetsMonitor/lockCarManagement',
  ['/carManagement/assetsMonitor/lockAndUnlockCar', ROWS],
  '/carManagement/assetsReport/operationLog/dailyLog',
  '/carManagement/assetsReport/operationLog/monthlyLog',
  '/carManagement/assetsReport/behaviorAnalyze',
  '/carManagement/vehicleManagement/carMaintenance',
  '/carManagement/riskControll/riskAlarmRecord',
  ['/carManagement/riskControll/customerServiceRecord', ROWS],
  ['/carManagement/riskControll/carAccidentRecord', ROWS],
  '/carManagement/riskControll/warnRecord',
  `${CHARGE}/dashboard`,
  `${CHARGE}/accountManagement/accountBalanceAllocation`,
  `${CHARGE}/accountManagement/balanceAllocationRecord`,
  `${CHARGE}/accountManagement/juniorElectricCard`,
  `${CHARGE}/chargeManagement/electricCard`,
  `${CHARGE}/chargeManagement/consumeRecord`,
  `${CHARGE}/chargeManagement/countChangeRecord`,
  `${CHARGE}/chargeManagement/scanPlateRecord`,
  `${CHARGE}/chargeReconciliation`,
  '/systemSetting/orgManagement',
  '/systemSetting/roleManagement',
  '/systemSetting/userManagement',
  '/systemSetting/loginLog',
  ['/systemSetting/helpCenter/operationManual', '[data-testid="manual-article"] >> text=更新于'],
  '/notice',
  '/approve',
  '/downloadRecord',
].map((entry) => (typeof entry === 'string' ? [entry, ROWS] : entry));

describe('the demo admin finds content on every built page after a fresh start', () => {
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

  for (const [path, selector, todo] of BUILT_PAGES) {
    it(`shows content on ${path}`, { todo }, async () => {
      await page.goto(path);
      await page.locator(selector).first().waitFor({ timeout: 15_000 }).catch(async (err) => {
        await screenshot(page, `empty${path.replaceAll('/', '-')}`);
        throw err;
      });
      assert.equal(new URL(page.url()).pathname, path);
    });
  }
});
