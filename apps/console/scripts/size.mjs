#!/usr/bin/env node
// What a browser receives on the wire for /login and /dashboard (signed in):
// Debian's Chromium (playwright-core) against a served build (BASE_URL), summing
// the encoded bytes (compressed body plus headers, as Chromium's network events
// report them) of every script and style sheet each page loads with an empty
// cache. Also prints /login's largest contentful paint. Fails when /login's
// scripts and styles exceed the budget, or when the browser reports anything
// the Content-Security-Policy blocked on the way (the console must work under it).
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const USERNAME = process.env.SIZE_USERNAME ?? 'demo';
const PASSWORD = process.env.DEMO_PASSWORD ?? 'Demo@12345';
const BUDGET_KB = Number(process.env.SIZE_BUDGET_KB ?? 330);

const kb = (bytes) => (bytes / 1024).toFixed(1);

/** Messages of everything the Content-Security-Policy blocked, across pages. */
const violations = [];
function watchCsp(page) {
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) violations.push(msg.text());
  });
}

/** Records every response of a page through the DevTools protocol. */
async function recordNetwork(context, page) {
  watchCsp(page);
  const cdp = await context.newCDPSession(page);
  const requests = new Map();
  cdp.on('Network.responseReceived', (e) => {
    requests.set(e.requestId, { url: e.response.url, type: e.type, encoding: e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '' });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (r) r.bytes = e.encodedDataLength;
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  return requests;
}

function summarise(label, requests) {
  const rows = [...requests.values()].filter((r) => r.bytes !== undefined);
  const assets = rows.filter((r) => r.type === 'Script' || r.type === 'Stylesheet');
  const scripts = assets.filter((r) => r.type === 'Script');
  const sum = (list) => list.reduce((n, r) => n + r.bytes, 0);
  assets
    .sort((a, b) => b.bytes - a.bytes)
    .forEach((r) => console.log(`  ${new URL(r.url).pathname.padEnd(48)} ${kb(r.bytes).padStart(8)} KB  ${r.type.padEnd(10)} ${r.encoding || 'identity'}`));
  console.log(
    `${label}: ${kb(sum(assets))} KB of scripts and styles on the wire in ${assets.length} requests ` +
      `(${scripts.length} scripts, ${kb(sum(scripts))} KB); ${rows.length} requests, ${kb(sum(rows))} KB in all`,
  );
  return sum(assets);
}

/** The page's largest contentful paint in ms, as Chromium reports it. */
async function largestContentfulPaint(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        let last = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) last = entry.startTime;
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        setTimeout(() => resolve(last), 500);
      }),
  );
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
let failed = false;
try {
  const contextOptions = { baseURL: BASE_URL, locale: 'zh-CN', viewport: { width: 1440, height: 900 } };

  // /login, empty cache.
  const loginContext = await browser.newContext(contextOptions);
  const loginPage = await loginContext.newPage();
  const loginRequests = await recordNetwork(loginContext, loginPage);
  await loginPage.goto('/login', { waitUntil: 'networkidle' });
  const lcp = await largestContentfulPaint(loginPage);
  const login = summarise('/login', loginRequests);
  console.log(`/login largest contentful paint: ${lcp.toFixed(0)} ms`);

  // Sign in through the page, then open /dashboard in a fresh context (empty
  // cache) that carries the session.
  await loginPage.getByRole('tab', { name: '账号登录' }).click();
  await loginPage.getByPlaceholder('请输入账号').fill(USERNAME);
  await loginPage.getByPlaceholder('请输入密码').fill(PASSWORD);
  await loginPage.getByPlaceholder('请输入密码').press('Enter');
  await loginPage.waitForURL('**/dashboard', { timeout: 30_000 });
  const storageState = await loginContext.storageState();
  await loginContext.close();

  const dashboardContext = await browser.newContext({ ...contextOptions, storageState });
  const dashboardPage = await dashboardContext.newPage();
  const dashboardRequests = await recordNetwork(dashboardContext, dashboardPage);
  await dashboardPage.goto('/dashboard', { waitUntil: 'networkidle' });
  await dashboardPage.getByTestId('workbench').waitFor({ timeout: 30_000 });
  console.log('');
  summarise('/dashboard (signed in)', dashboardRequests);
  await dashboardContext.close();

  if (violations.length > 0) {
    console.error(`FAIL: the Content-Security-Policy blocked ${violations.length} things:\n  ${violations.join('\n  ')}`);
    failed = true;
  }
  if (login / 1024 > BUDGET_KB) {
    console.error(`FAIL: /login receives ${kb(login)} KB of scripts and styles, budget ${BUDGET_KB} KB`);
    failed = true;
  } else {
    console.log(`OK: /login ${kb(login)} KB on the wire, within the ${BUDGET_KB} KB budget`);
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
