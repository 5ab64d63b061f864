// Alarm evidence in the browser (issues 21 and 22): the demo data holds
// active-safety alarms (a DMS phone call among them) with a terminal photo
// and a real H.264 clip in the object store. The phone-use alarm is found in
// the alarm records by its type, its detail drawer shows the photo, and its
// clip plays: the <video> advances and has a picture.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi, launch, newPage, screenshot, sessionToken, signIn, until } from './support.mjs';

const ALARMS = '/carManagement/riskControll/riskAlarmRecord';

/** A calendar day `offset` days from today, as the date filters write it. */
function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

describe('alarm evidence', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  it('opens an active-safety alarm of the demo data, sees its photo and plays its clip', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, 'demo');
    const token = await sessionToken(context);
    const range = `alarmTimeStart=${day(-2)}&alarmTimeEnd=${day(1)}`;
    const alarm = await until('a demo phone-use alarm with a clip', async () => {
      const answer = await callApi('GET', `/api/v1/risk/alarms?alarmTypes=PHONE_USE&size=100&${range}`, { token });
      assert.equal(answer.code, 200, answer.msg);
      return answer.data.list.find((a) => a.clips.length > 0 && a.images.length > 0);
    });
    assert.equal(alarm.clips[0].file.contentType, 'video/mp4');

    // The records filtered to phone use and the alarm's plate show it.
    await page.goto(`${ALARMS}?alarmTypes=PHONE_USE&plateNumbers=${encodeURIComponent(alarm.plateNumber)}&statuses=${alarm.status}&${range}`);
    const list = page.getByTestId('risk-alarm-list');
    const row = list.locator('.ant-table-row').filter({ hasText: alarm.plateNumber }).first();
    await row.waitFor();
    await row.getByTestId('alarm-detail').click();

    const drawer = page.getByTestId('alarm-drawer');
    await drawer.getByTestId('alarm-facts').waitFor();
    // The photo, previewable.
    const photo = drawer.getByTestId('alarm-images').locator('img').first();
    await photo.waitFor();
    await until('the photo to load', async () => photo.evaluate((img) => img.complete && img.naturalWidth > 0));

    // The clip plays in place.
    const video = drawer.getByTestId('alarm-clip').first();
    await video.scrollIntoViewIfNeeded();
    await video.evaluate((v) => {
      v.muted = true;
      return v.play();
    });
    await until(
      'the clip to advance',
      async () => video.evaluate((v) => v.currentTime > 0.5 && v.videoWidth > 0),
      20_000,
      250,
    );
    const shown = await video.evaluate((v) => ({ time: v.currentTime, width: v.videoWidth, error: v.error?.code ?? 0 }));
    assert.ok(shown.width > 0 && shown.time > 0, JSON.stringify(shown));
    assert.equal(shown.error, 0);
    await screenshot(page, 'alarm-evidence-clip');

    // Reading the evidence is in the alarm's activity log.
    const detail = await callApi('GET', `/api/v1/risk/alarms/${alarm.id}`, { token });
    assert.equal(detail.code, 200, detail.msg);
    assert.ok(detail.data.activities.some((a) => a.action === 'VIEWED'));
  });
});
