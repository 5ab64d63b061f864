// Shared set-up of the console browser tests: Debian's Chromium driven by
// playwright-core against a running stack (BASE_URL, default the gateway).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
export const PASSWORD = process.env.DEMO_PASSWORD ?? 'Demo@12345';
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
mkdirSync(SCREENSHOTS, { recursive: true });

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/** A fresh context: Chinese browser, Shanghai time, desktop size. */
export async function newPage(browser, options = {}) {
  const context = await browser.newContext({
    baseURL: BASE_URL,
    locale: 'zh-CN',
    timezoneId: 'Asia/Shanghai',
    viewport: { width: 1440, height: 900 },
    ...options,
  });
  // Generous: CI shares two cores between the stack, the browser and the build.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  return { context, page };
}

/**
 * Signs in as `username` and opens `at` (the workbench unless told), as a
 * browser does that holds the session: the gateway's account sign-in, then the
 * two cookies the console keeps (enterpriseToken, platformId). The sign-in page
 * itself is login.test.mjs's subject; going through it here cost each test
 * 2-3 s of typing and a workbench it did not look at.
 */
export async function signIn(page, username, { at = '/dashboard' } = {}) {
  const answer = await callApi('POST', '/api/v1/auth/login', {
    body: { loginType: 1, username, password: PASSWORD },
  });
  assert.equal(answer.code, 200, `sign-in of ${username}: ${answer.msg}`);
  assert.equal(answer.data.sessionKind, 'enterprise', `${username} has one enterprise`);
  await page.context().addCookies(
    [['enterpriseToken', answer.data.token], ['platformId', '1']].map(([name, value]) => ({
      name,
      value,
      url: BASE_URL,
      sameSite: 'Lax',
    })),
  );
  await page.goto(at);
  if (at === '/dashboard') await page.getByTestId('workbench').waitFor();
}

/**
 * Picks the first node of a tree select (`select`, the control) and waits for
 * its dropdown to close. Under load a click can land while the dropdown is
 * still opening and leave it open with nothing chosen: the pick is tried again.
 */
export async function pickFirstTreeNode(page, select) {
  const dropdown = page.locator('.ant-select-dropdown:visible');
  for (let attempt = 1; ; attempt += 1) {
    if ((await dropdown.count()) === 0) await select.click();
    await dropdown.locator('.ant-select-tree-title').first().click();
    try {
      await dropdown.waitFor({ state: 'hidden', timeout: 10_000 });
      return;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

/**
 * Waits until no antd motion runs on `root` or inside it (a popover zooming in,
 * a submenu unfolding). Playwright takes a target's position before it clicks;
 * under load the motion moves the target in between and the click lands on
 * its neighbour (seen as a language switch or a menu click that did nothing).
 */
export async function afterMotion(root) {
  await root.waitFor();
  const element = await root.elementHandle();
  await root.page().waitForFunction(
    (el) => [el, ...el.querySelectorAll('[class]')].every((node) => ![...node.classList].some((c) => /-(appear|enter|leave)(-(prepare|start|active))?$/.test(c))),
    element,
  );
}

export async function screenshot(page, name) {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** The session cookie the console keeps. */
export async function sessionToken(context) {
  const cookies = await context.cookies();
  return cookies.find((c) => c.name === 'enterpriseToken')?.value;
}

/** Calls the gateway directly (set-up and checks outside the browser). */
export async function callApi(method, path, { body, token } = {}) {
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: { platformId: '1', 'Content-Type': 'application/json', ...(token ? { token } : {}) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  });
  return res.json();
}

/**
 * The charging platform stand-in's admin API (the stack plays the platform in
 * development; deploy/test.sh binds it at a known port and passes its URL as
 * CHARGING_STANDIN_URL). Answers the parsed body; a non-2xx answer throws.
 */
export async function standIn(method, path, body) {
  const base = process.env.CHARGING_STANDIN_URL;
  assert.ok(base, 'CHARGING_STANDIN_URL is not set: the charging stand-in\'s admin API is unknown');
  const res = await fetch(`${base.replace(/\/$/, '')}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  });
  const answer = await res.json();
  assert.ok(res.ok, `stand-in ${method} ${path}: HTTP ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** The development SMS sender's messages to `phone`, newest first. */
export async function smsOutbox(phone) {
  const answer = await callApi('GET', `/api/v1/dev/sms-outbox?phone=${phone}`);
  assert.equal(answer.code, 200, `sms outbox: ${answer.msg}`);
  return answer.data;
}

/** Waits for a message to `phone` newer than the ones in `before` and gives its code. */
export async function waitForSmsCode(phone, before, timeoutMs = 10_000) {
  const seen = new Set(before.map((m) => `${m.sentTime}|${m.code}`));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const fresh = (await smsOutbox(phone)).find((m) => !seen.has(`${m.sentTime}|${m.code}`));
    if (fresh) return fresh.code;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no SMS code reached ${phone}`);
}

/** The text of the newest toast. */
export function toast(page, text) {
  return page.locator('.ant-message-notice').getByText(text);
}

/** A VIN with a valid check digit (9th character), unique per `serial`. */
export function vinFor(serial) {
  const letters = { A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9, S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9 };
  const weights = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
  const draft = `LGXCE4CB0R${serial.padStart(7, '0')}`;
  const sum = [...draft].reduce((acc, c, i) => acc + (/\d/.test(c) ? Number(c) : letters[c]) * weights[i], 0);
  const check = sum % 11 === 10 ? 'X' : String(sum % 11);
  return draft.slice(0, 8) + check + draft.slice(9);
}

/** Polls `probe` until it gives a truthy value or the deadline passes. */
export async function until(what, probe, timeoutMs = 30_000, everyMs = 500) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The input of an antd field whose test id lands on the input or on its wrapper. */
export function inputOf(scope, testId) {
  return scope.locator(`input[data-testid="${testId}"], [data-testid="${testId}"] input`).first();
}
