#!/usr/bin/env node
// A deployment's usage page opened directly by URL (a fresh page load, nothing visited before, as
// after a reload or a bookmark), then reloaded: both charts must draw their series (the calls and
// errors bars, the p50/p95/p99 latency lines with a non-empty SVG path), the legends must sit on one
// row each, and no page error, console error or CSP violation may happen. Signs in through the API
// (the page's own cookies), so the usage URL is the first page of the app the browser loads.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT (id), E2E_LANG (en or zh-CN; default
//      en), E2E_ARTIFACTS (screenshots), CHROMIUM_PATH.
// Prints one JSON line "[e2e] RESULT {...}" with what each chart drew; exit 0 when every check passed.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const deploymentId = process.env.E2E_DEPLOYMENT;
const lang = process.env.E2E_LANG || 'en';
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/usage-direct';
const screenshot = screenshots(artifacts);

/** What a chart drew: bar rectangles and line curves with a path, dots, legend items and their rows. */
async function drawn(chart) {
  return chart.evaluate((node) => {
    const withPath = (selector) => [...node.querySelectorAll(selector)].filter((p) => (p.getAttribute('d') || '').trim().length > 0);
    const items = [...node.querySelectorAll('[class*="legendItem"], .recharts-legend-item')].filter((item) =>
      [...item.classList].some((name) => name.endsWith('-legendItem') || name === 'recharts-legend-item'),
    );
    return {
      bars: withPath('path.recharts-rectangle').length,
      lines: withPath('path.recharts-line-curve, .recharts-line path.recharts-curve').filter((p) => /L|C/.test(p.getAttribute('d'))).length,
      dots: node.querySelectorAll('.recharts-line-dots circle, circle.recharts-dot').length,
      legendItems: items.length,
      legendRows: new Set(items.map((item) => Math.round(item.getBoundingClientRect().top))).size,
      legendTexts: items.map((item) => item.textContent.trim()),
    };
  });
}

async function main() {
  if (!username || !password || !deploymentId) fail('SAMPAN_USER, SAMPAN_PASSWORD and E2E_DEPLOYMENT must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: lang });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Content Security Policy/i.test(message.text())) errors.push(`console error: ${message.text()}`);
  });
  const results = {};
  try {
    await step('sign in through the API (no page of the app loaded yet)', async () => {
      const csrf = await context.request.get(`${baseUrl}/api/v1/auth/csrf/`);
      if (!csrf.ok()) fail(`GET csrf answered ${csrf.status()}`);
      const token = (await context.cookies()).find((cookie) => cookie.name === 'csrftoken')?.value;
      const login = await context.request.post(`${baseUrl}/api/v1/auth/login/`, {
        data: { username, password },
        headers: { 'X-CSRFToken': token ?? '', Referer: `${baseUrl}/login` },
      });
      if (!login.ok()) fail(`login answered ${login.status()}: ${await login.text()}`);
    });

    for (const load of ['direct', 'reload']) {
      await step(`${load === 'direct' ? 'open /deployments/' + deploymentId + '/usage by URL' : 'reload the page'}: both charts drawn`, async () => {
        const response = load === 'direct'
          ? await page.goto(`${baseUrl}/deployments/${deploymentId}/usage`, { waitUntil: 'load' })
          : await page.reload({ waitUntil: 'load' });
        if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
        const calls = page.getByTestId('usage-calls-chart');
        const latency = page.getByTestId('usage-latency-chart');
        await calls.locator('path.recharts-rectangle').first().waitFor();
        await latency.locator('path.recharts-line-curve, .recharts-line path.recharts-curve').first().waitFor();
        await page.waitForTimeout(800); // recharts animates the series in
        const bars = await drawn(calls);
        const lines = await drawn(latency);
        results[load] = { calls: bars, latency: lines };
        if (bars.bars < 1) fail(`the calls chart drew no bar: ${JSON.stringify(bars)}`);
        if (lines.lines < 3) fail(`the latency chart drew ${lines.lines} of its 3 lines (p50, p95, p99): ${JSON.stringify(lines)}`);
        if (bars.legendItems !== 2 || bars.legendRows !== 1) fail(`the calls chart's legend: ${JSON.stringify(bars)}`);
        if (lines.legendItems !== 3 || lines.legendRows !== 1) fail(`the latency chart's legend (stacked?): ${JSON.stringify(lines)}`);
        await screenshot(page, `usage-${load}-${lang}`);
        log(`${load}: calls chart ${JSON.stringify(bars)}; latency chart ${JSON.stringify(lines)}`);
      });
    }
    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(results)}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
