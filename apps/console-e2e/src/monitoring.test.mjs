// Live monitoring in the browser (issue 10), against the stack's simulated demo
// fleet (deploy/test.sh starts `fleetdesk simulate` beside it, reporting every
// 2 s): the live map and a moving vehicle, a circle fence drawn on the map and
// the crossing it records, track playback, remote lock and unlock answered by
// the simulated terminal, and no placeholder left under 资产监控.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { callApi, launch, newPage, pickFirstTreeNode, screenshot, sessionToken, signIn, inputOf, toast, until } from './support.mjs';

const MONITOR = '/carManagement/assetsMonitor';
const suffix = `${Date.now()}`.slice(-6);

/** The gateway's answer's data, as the signed-in page's session. */
async function apiData(token, path) {
  const answer = await callApi('GET', path, { token });
  assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
  return answer.data;
}

const positions = async (token) => (await apiData(token, '/api/v1/monitor/positions')).list;
const fresh = (p, maxAgeMs = 20_000) => Date.now() - Date.parse(p.fixTime) < maxAgeMs;

/** Web Mercator pixels at `zoom`, as Leaflet projects (EPSG:3857). */
function project({ lat, lng }, zoom) {
  const scale = 256 * 2 ** zoom;
  const sin = Math.sin((lat * Math.PI) / 180);
  return { x: (scale * (lng + 180)) / 360, y: scale * (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) };
}

/** Clicks the map in `mapTestId` at a WGS-84 position (the tests' stack draws the basemap in WGS-84). */
async function clickMapAt(page, mapTestId, position) {
  const canvas = page.getByTestId(mapTestId).locator('.fd-map__canvas');
  const [lat, lng, zoom] = (await canvas.getAttribute('data-view')).split(',').map(Number);
  const box = await canvas.boundingBox();
  const centre = project({ lat, lng }, zoom);
  const target = project(position, zoom);
  const x = box.x + box.width / 2 + (target.x - centre.x);
  const y = box.y + box.height / 2 + (target.y - centre.y);
  assert.ok(x > box.x && x < box.x + box.width && y > box.y && y < box.y + box.height, `(${position.lat}, ${position.lng}) is outside the map's view`);
  await page.mouse.click(x, y);
}

describe('live monitoring', () => {
  let browser;
  let session;
  before(async () => {
    browser = await launch();
    session = await newPage(browser);
    await signIn(session.page, 'demo');
  });
  // The page as each test left it (on a failure, where it stopped).
  let n = 0;
  afterEach(async () => {
    n += 1;
    await screenshot(session.page, `monitoring-${n}-end`).catch(() => undefined);
  });
  after(async () => {
    await session?.context.close();
    await browser?.close();
  });

  it('shows the simulated fleet on the live map, and a picked vehicle moves', async () => {
    const { context, page } = session;
    const token = await sessionToken(context);
    await page.goto(`${MONITOR}/quicklyFindCar`);
    await page.getByTestId('quickly-find-car').waitFor();
    const legend = page.getByTestId('status-legend');
    // The simulator reports within seconds of the stack starting: some vehicles are live.
    await until('vehicles on the live map', async () => {
      const counts = await Promise.all(['行驶', '停车', '充电'].map(async (s) => Number(await legend.locator('.ant-checkbox-wrapper').filter({ hasText: s }).locator('.fd-monitor-legend__count').innerText())));
      return counts.some((n) => n > 0);
    });

    // A driving vehicle: the card shows it; its fix time and position change as it reports.
    const driving = await until('a driving vehicle', async () => (await positions(token)).find((p) => p.status === 'driving' && fresh(p)));
    const search = inputOf(page, 'plate-search');
    await search.fill(driving.plateNumber);
    await search.press('Enter');
    const card = page.getByTestId('vehicle-card');
    await card.getByText(driving.plateNumber).waitFor();
    const shownFix = await card.getByTestId('vehicle-fix-time').innerText();
    await until('the card to show a newer fix', async () => (await card.getByTestId('vehicle-fix-time').innerText()) !== shownFix);
    await until('the vehicle to move', async () => {
      const now = (await positions(token)).find((p) => p.vehicleId === driving.vehicleId);
      return now && (now.lat !== driving.lat || now.lng !== driving.lng);
    });
    await screenshot(page, 'monitoring-live-map');
  });

  it('draws a circle fence around a live vehicle and records its entry', async () => {
    const { context, page } = session;
    const token = await sessionToken(context);
    // Any live vehicle: one inside the fence when it is created enters it on its
    // next fix (the engine starts every vehicle outside), with dwell 0 at once.
    const vehicle = await until('a live vehicle', async () => (await positions(token)).find((p) => fresh(p, 10_000)));
    const name = `E2E围栏${suffix}`;
    await page.goto(`${MONITOR}/addFence`);
    const edit = page.getByTestId('fence-edit');
    await edit.getByTestId('fence-name').fill(name);
    await pickFirstTreeNode(page, edit.getByTestId('fence-org'));
    await edit.getByTestId('fence-shape').getByText('圆形').click();
    // At the map's first zoom a pixel is ≈ 10 km: a 30 km radius holds the vehicle surely.
    await inputOf(edit, 'fence-radius').fill('30000');
    await clickMapAt(page, 'fence-map', vehicle);
    await page.locator('.fd-fence-handle--center').waitFor();
    await screenshot(page, 'monitoring-fence-drawn');
    await edit.getByTestId('fence-save').click();
    await toast(page, '围栏已创建').waitFor();
    await page.waitForURL('**/fenceDetail?id=*');
    // Who is inside now: the vehicle, once its next fix is evaluated.
    await until('the vehicle inside the fence', async () => {
      const id = new URL(page.url()).searchParams.get('id');
      return (await apiData(token, `/api/v1/geofences/${id}/inside`)).list.some((v) => v.vehicleId === vehicle.vehicleId);
    });

    // The crossing in 进出围栏记录, found by the vehicle's plate.
    await page.goto(`${MONITOR}/crossRailPage?plateNumbers=${encodeURIComponent(vehicle.plateNumber)}`);
    const list = page.getByTestId('crossing-list');
    await until('the entry in the crossing list', async () => {
      if ((await list.locator('tr', { hasText: name }).filter({ hasText: '进入' }).count()) > 0) return true;
      await list.getByRole('button', { name: /查\s*询/ }).click();
      return false;
    }, 30_000, 2_000);
    await screenshot(page, 'monitoring-crossings');
  });

  it('plays a vehicle’s last hour back: the scrub position moves and the charts render', async () => {
    const { context, page } = session;
    const token = await sessionToken(context);
    // A vehicle that has reported for a while, so its track has points to play.
    const vehicle = await until('a driving vehicle', async () => (await positions(token)).find((p) => p.status === 'driving' && fresh(p)));
    const pad = (n) => String(n).padStart(2, '0');
    const local = (d) => {
      const s = new Date(d.getTime() + 8 * 3600_000); // the page's Shanghai time
      return `${s.getUTCFullYear()}-${pad(s.getUTCMonth() + 1)}-${pad(s.getUTCDate())} ${pad(s.getUTCHours())}:${pad(s.getUTCMinutes())}:${pad(s.getUTCSeconds())}`;
    };
    const now = new Date();
    // Right after the stack starts a vehicle may have a fix or two: wait for a few to play.
    const window = `from=${encodeURIComponent(new Date(now.getTime() - 3600_000).toISOString())}&to=${encodeURIComponent(new Date(now.getTime() + 600_000).toISOString())}`;
    await until('a few fixes of its track', async () => (await apiData(token, `/api/v1/monitor/vehicles/${vehicle.vehicleId}/track?${window}`)).points.length >= 4);
    const query = new URLSearchParams({ vehicleId: vehicle.vehicleId, plate: vehicle.plateNumber, from: local(new Date(now.getTime() - 3600_000)), to: local(new Date(now.getTime() + 60_000)) });
    await page.goto(`${MONITOR}/trackPlayback?${query}`);
    const track = page.getByTestId('track-playback');
    const slider = track.locator('.fd-monitor-player__slider [role=slider]');
    await slider.waitFor();
    const max = Number(await slider.getAttribute('aria-valuemax'));
    assert.ok(max > 1, `the track has points (${max + 1})`);
    await track.getByTestId('track-speed-chart').locator('canvas').first().waitFor();
    await track.getByTestId('track-soc-chart').locator('canvas').first().waitFor();
    const start = Number(await slider.getAttribute('aria-valuenow'));
    const shownAt = await track.getByTestId('track-now').innerText();
    await track.getByTestId('track-play').click();
    await until('the scrub position to move', async () => Number(await slider.getAttribute('aria-valuenow')) > start, 15_000, 200);
    await until('the shown time to follow', async () => (await track.getByTestId('track-now').innerText()) !== shownAt, 15_000, 200);
    await screenshot(page, 'monitoring-track');
    await track.getByTestId('track-play').click(); // pause
  });

  it('locks a parked rented vehicle until the terminal confirms, then unlocks it', async () => {
    const { context, page } = session;
    const token = await sessionToken(context);
    const list = page.getByTestId('lock-vehicle-list');

    /** Sends `action` from the list's row and gives the command's final state. */
    const command = async (plate, action) => {
      await page.goto(`${MONITOR}/lockCarManagement?plateNumbers=${encodeURIComponent(plate)}`);
      const row = list.locator('tr', { hasText: plate });
      await row.getByTestId(`${action}-button`).click();
      const dialog = page.locator('.ant-modal:visible').filter({ has: page.getByTestId('lock-dialog') });
      await dialog.getByTestId('lock-reason').fill(`端到端测试${action === 'lock' ? '锁车' : '解锁'}${suffix}`);
      const submit = dialog.getByRole('button', { name: /提\s*交/ });
      const refused = dialog.getByTestId('lock-refusal');
      const fieldError = dialog.locator('.ant-form-item-explain-error');
      // The dialog closes once the command is queued (its toast is the unit
      // test's); a refusal stays in it. A dialog that shows nothing for 15 s
      // once gets a second click (same Idempotency-Key: one command); a field
      // error or a second silence fails with what the operator saw.
      const answer = (timeoutMs) => until(`the ${action} dialog to answer`, async () => {
        if (await refused.isVisible()) return 'refused';
        if ((await dialog.count()) === 0) return 'sent';
        if ((await fieldError.count()) > 0) return 'field error';
        return undefined;
      }, timeoutMs, 250).catch((err) => {
        if (err.message.startsWith('timed out')) return 'silent';
        throw err;
      });
      const shown = async () => {
        const text = await dialog.innerText().catch(() => '');
        const toasts = await page.locator('.ant-message-notice').allInnerTexts();
        return `the dialog shows "${text}"; toasts: "${toasts.join(' | ')}"`;
      };
      await submit.click();
      let outcome = await answer(15_000);
      if (outcome === 'silent') {
        console.log(`# the ${action} dialog answered nothing in 15 s (${await shown()}): clicking 提交 again`);
        await submit.click();
        outcome = await answer(20_000);
      }
      if (outcome === 'field error' || outcome === 'silent') {
        throw new Error(`the ${action} dialog ${outcome === 'silent' ? 'never answered' : 'shows a field error'}: ${await shown()}`);
      }
      if (outcome === 'refused') return `refused: ${await refused.innerText()}`;
      // The list polls while the command runs; the terminal answers within seconds.
      const state = row.getByTestId('command-state');
      return until(`the ${action} command to finish`, async () => {
        const text = await state.innerText();
        return ['成功', '失败', '超时', '已过期'].find((s) => text.includes(s));
      }, 30_000, 500);
    };

    // A parked, online, not charging rented vehicle, chosen now; if it drives off
    // before the command lands the terminal refuses, and the next one is tried.
    const tried = new Set();
    let locked;
    for (let attempt = 0; attempt < 4 && !locked; attempt += 1) {
      // A share of the simulated fleet is off shift, parked for a long while: watch
      // the live parked vehicles until one of them is in the lock list (rent, rent-to-own).
      const pick = await until('a parked, online rented vehicle to lock', async () => {
        const parked = (await positions(token)).filter((p) => p.status === 'parked' && fresh(p, 120_000) && !tried.has(p.vehicleId));
        for (let i = 0; i < parked.length; i += 30) {
          const plates = parked.slice(i, i + 30).map((p) => `plateNumbers=${encodeURIComponent(p.plateNumber)}`).join('&');
          const found = (await apiData(token, `/api/v1/lock/vehicles?page=1&size=50&${plates}`)).list.find((v) => v.online && v.speedKmh === 0 && !v.charging);
          if (found) return found;
        }
        return undefined;
      }, 60_000, 1_000);
      tried.add(pick.vehicleId);
      const outcome = await command(pick.plateNumber, 'lock');
      if (outcome === '成功') locked = pick;
    }
    assert.ok(locked, `a lock succeeded (tried ${tried.size} vehicles)`);
    const row = list.locator('tr', { hasText: locked.plateNumber });
    await until('the list to show it locked', async () => {
      if ((await row.getByText('已锁车').count()) > 0) return true;
      await page.reload();
      return false;
    }, 15_000, 1_000);
    await screenshot(page, 'monitoring-locked');

    assert.equal(await command(locked.plateNumber, 'unlock'), '成功');
    await until('the list to show it unlocked', async () => {
      if ((await row.getByText('未锁车').count()) > 0) return true;
      await page.reload();
      return false;
    }, 15_000, 1_000);

    // Its command history lists both, newest first.
    await page.goto(`${MONITOR}/lockAndUnlockCar?vehicleId=${locked.vehicleId}&plate=${encodeURIComponent(locked.plateNumber)}`);
    const history = page.getByTestId('lock-command-list');
    await history.locator('tr', { hasText: `端到端测试锁车${suffix}` }).getByText('成功').waitFor();
    await history.locator('tr', { hasText: `端到端测试解锁${suffix}` }).getByText('成功').waitFor();
  });

  it('shares a refrigerated van’s temperatures with a consignee, who opens the link without signing in until it is revoked', async () => {
    const { context, page } = session;
    const token = await sessionToken(context);
    // A refrigerated van of the simulated fleet that has reported its probes.
    const van = await until('a refrigerated van with readings', async () =>
      (await apiData(token, '/api/v1/temperature/vehicles?page=1&size=50')).list.find((v) => v.latest.length > 0),
    );
    await page.goto(`${MONITOR}/authorizationRecord?vehicleId=${van.vehicleId}&plate=${encodeURIComponent(van.plateNumber)}`);
    await page.getByTestId('share-create').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('收货人', { exact: true }).fill(`端到端收货人${suffix}`);
    await dialog.getByLabel('收货人电话').fill('13900001111');
    await dialog.getByRole('button', { name: '提 交' }).click();
    const link = (await dialog.getByTestId('share-link').locator('code').innerText()).trim();
    assert.match(link, /\/share\/temperature\/[^/]+$/);

    // The consignee: another browser, no session, only the link.
    const consignee = await newPage(browser);
    try {
      await consignee.page.goto(link);
      await consignee.page.getByText(`${van.plateNumber} 冷链温度`).waitFor();
      // The page keeps the van's last probe readings (a newer fix without
      // probes does not blank them); should they not show, the consignee
      // reloads, as a person would, and what the page says is reported.
      const probe = consignee.page.getByTestId('shared-temperature-latest').getByText(/探头\d/).first();
      await until('a probe reading on the consignee page', async () => {
        const shown = await probe.waitFor({ timeout: 10_000 }).then(() => true, () => false);
        if (shown) return true;
        await consignee.page.reload();
        await consignee.page
          .getByText(`${van.plateNumber} 冷链温度`)
          .waitFor({ timeout: 15_000 })
          .catch(async () => {
            const text = (await consignee.page.locator('body').innerText()).slice(0, 300);
            throw new Error(`the consignee page after a reload shows: ${text}`);
          });
        return false;
      }, 60_000, 1_000);
      // The last 24 hours' chart draws (its zoom slider once crashed the page).
      await consignee.page.getByTestId('shared-temperature-chart').locator('canvas').first().waitFor();
      await consignee.page.getByText(`${van.plateNumber} 冷链温度`).waitFor();
      assert.equal(new URL(consignee.page.url()).pathname.startsWith('/login'), false, 'the link needs no sign-in');

      // Revoked (the console's revoke button has its unit test): the link stops working at once.
      await dialog.getByRole('button', { name: '提 交' }).click();
      const shares = await apiData(token, `/api/v1/temperature/shares?vehicleId=${van.vehicleId}&page=1&size=50`);
      const share = shares.list.find((s) => s.consigneeName === `端到端收货人${suffix}`);
      assert.ok(share, 'the new share is listed');
      const revoked = await callApi('POST', `/api/v1/temperature/shares/${share.id}/revoke`, { token });
      assert.equal(revoked.code, 200, revoked.msg);
      await consignee.page.reload();
      await consignee.page.getByTestId('shared-temperature-gone').waitFor();
    } finally {
      await consignee.context.close();
    }
  });

  it('has no placeholder left under 资产监控 (temperature pages aside)', async () => {
    const { page } = session;
    const pages = {
      fenceDashboard: 'fence-dashboard',
      operateMonitor: 'fence-alarm-list',
      addFence: 'fence-edit',
      singInSetPage: 'sign-in-add',
      managePage: 'fence-add',
      crossRailPage: 'crossing-list',
      fenceDetail: 'fence-edit',
      quicklyFindCar: 'quickly-find-car',
      lockCarManagement: 'lock-vehicle-list',
      lockAndUnlockCar: 'lock-command-list',
      trackPlayback: 'track-playback',
    };
    for (const [name, testId] of Object.entries(pages)) {
      await page.goto(`${MONITOR}/${name}`);
      await page.getByTestId(testId).first().waitFor();
      assert.equal(await page.getByText('即将上线').count(), 0, `${name} shows the placeholder`);
    }
  });
});
