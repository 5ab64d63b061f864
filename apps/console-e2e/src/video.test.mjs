// Video monitoring and playback in the browser (issue 22), against the
// stack's simulated fleet: the simulator's camera vehicles stream real H.264
// to the device edge, which reported their channels when they signed on.
// 风控管理 › 视频监控 plays a camera's channel 1 live (the <video> advances and
// has a picture); 视频回放 shows today's recordings of that camera on the
// timeline and plays one back.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { callApi, inputOf, launch, newPage, screenshot, sessionToken, signIn, until } from './support.mjs';

const RISK = '/carManagement/riskControll';

/** An online vehicle with camera 1, as the tree lists it. */
async function cameraVehicle(token) {
  return until(
    'an online vehicle with a camera',
    async () => {
      const answer = await callApi('GET', '/api/v1/video/vehicles?size=100', { token });
      assert.equal(answer.code, 200, answer.msg);
      return answer.data.list.find((v) => v.online && v.channels.includes(1));
    },
    90_000,
    1000,
  );
}

/** Waits for `tile` to play, then for its <video> to advance with a picture. */
async function assertPlays(tile, what) {
  await until(
    `${what} playing`,
    async () => {
      const state = await tile.getAttribute('data-state');
      assert.ok(!['offline', 'noCamera', 'error', 'unsupported', 'ended'].includes(state), `${what}: ${state}: ${await tile.innerText()}`);
      return state === 'playing';
    },
    60_000,
  );
  const video = tile.locator('video');
  const before = await video.evaluate((v) => v.currentTime);
  await until(`${what} advancing`, async () => (await video.evaluate((v) => v.currentTime)) > before + 1, 20_000);
  const width = await video.evaluate((v) => v.videoWidth);
  assert.ok(width > 0, `${what}: videoWidth ${width}`);
}

/** Narrows the camera tree to `plate`. */
async function searchTree(page, plate) {
  const search = inputOf(page, 'camera-tree-search');
  await search.fill(plate);
  await search.press('Enter');
}

describe('video monitoring and playback', () => {
  let browser;
  let session;
  before(async () => {
    browser = await launch();
    session = await newPage(browser);
    await signIn(session.page, 'demo');
  });
  let n = 0;
  afterEach(async () => {
    n += 1;
    await screenshot(session.page, `video-${n}-end`).catch(() => undefined);
  });
  after(async () => {
    await session?.context.close();
    await browser?.close();
  });

  it('plays a simulated camera live from the camera tree', async () => {
    const { context, page } = session;
    const vehicle = await cameraVehicle(await sessionToken(context));
    await page.goto(`${RISK}/monitor`);
    await page.getByTestId('video-monitor').waitFor();
    await searchTree(page, vehicle.plateNumber);
    await page.locator(`[data-testid="camera-channel"][data-plate="${vehicle.plateNumber}"][data-channel="1"]`).click();
    await assertPlays(page.getByTestId('video-tile').first(), `${vehicle.plateNumber} live`);

    // Closing the tile ends the viewing, which the audit then shows with its end.
    await page.getByTestId('video-tile-close').first().click();
    await page.getByTestId('video-audit').click();
    const drawer = page.getByTestId('video-views-drawer');
    await drawer.getByText(vehicle.plateNumber).first().waitFor();
  });

  it('plays back a recording from the timeline', async () => {
    const { context, page } = session;
    const vehicle = await cameraVehicle(await sessionToken(context));
    await page.goto(`${RISK}/playback`);
    await page.getByTestId('video-playback').waitFor();
    await searchTree(page, vehicle.plateNumber);
    await page.locator(`[data-testid="camera-vehicle"][data-plate="${vehicle.plateNumber}"]`).click();
    await page.getByTestId('playback-plate').getByText(vehicle.plateNumber).waitFor();

    // Channel 1 on the day the page opens with (Beijing today), or yesterday before
    // 08:00 Beijing: the simulated recorders start their first file between 07:00 and 07:50.
    const beijing = new Date(Date.now() + 8 * 3600_000);
    if (beijing.getUTCHours() < 8) {
      const yesterday = new Date(beijing.getTime() - 24 * 3600_000).toISOString().slice(0, 10);
      const input = page.getByTestId('playback-day').locator('input').or(page.locator('input[data-testid="playback-day"]')).first();
      await input.click();
      await input.fill(yesterday);
      await input.press('Enter');
      await page.getByTestId('playback-day').locator('input').or(page.locator('input[data-testid="playback-day"]')).first().evaluate((el, day) => {
        if (el.value !== day) throw new Error(`the day reads ${el.value}, not ${day}`);
      }, yesterday);
    }
    // The recorder's resources on the timeline.
    const resources = page.getByTestId('video-timeline-resource');
    await until(
      'a recording on the timeline',
      async () => {
        if ((await resources.count()) > 0) return true;
        await page.getByTestId('playback-query').click();
        return false;
      },
      60_000,
      3000,
    );
    await page.getByTestId('playback-resource').first().click();
    await assertPlays(page.getByTestId('playback-tile'), `${vehicle.plateNumber} playback`);
    await page.getByTestId('video-timeline-cursor').waitFor();
  });
});
