#!/usr/bin/env node
// Compression in headless Chromium, offline: on a trained model version's page "Compress" opens the
// dialog; the Smaller preset (int8) starts a training.compress job and the compression page opens,
// shows the job's progress, then the report (parent first, each variant's size, latency and metric)
// and the size-vs-accuracy chart. "Measure in this browser" downloads each model's ONNX and times it
// with onnxruntime-web (WebAssembly from this server's /assets/, 1 thread); the times show in the table
// and are saved on the compression. A variant's page says which version it was compressed from.
// Every request to another origin is refused (and fails the run): nothing comes from a CDN.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_PARENT (model version id), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints one JSON line "[e2e] RESULT {...}"; exit 0 when every check passed.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, isApi, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const parent = process.env.E2E_PARENT;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/compression';
const screenshot = screenshots(artifacts, { fullPage: true });

async function main() {
  if (!username || !password || !parent) fail('SAMPAN_USER, SAMPAN_PASSWORD and E2E_PARENT must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, locale: 'en' });
  // offline: only this server answers
  const origin = new URL(baseUrl).origin;
  const foreign = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    foreign.push(url);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  const wasm = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.endsWith('.wasm')) wasm.push({ path: new URL(response.url()).pathname, status: response.status(), type: response.headers()['content-type'] });
  });
  const result = {};
  try {
    await step('sign in and open the model version', async () => {
      await logIn(page, baseUrl, username, password);
      const response = await page.goto(`${baseUrl}/model-versions/${parent}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('compress-open').waitFor();
    });

    await step('compress with the Smaller preset and land on the compression page', async () => {
      await page.getByTestId('compress-open').click();
      await page.getByLabel('Smaller').check();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="compress-target"] option').length > 1);
      result.targets = await page.locator('[data-testid="compress-target"] option').allInnerTexts();
      await page.getByTestId('compress-target').selectOption('worker-cpu');
      await screenshot(page, 'compress-dialog', { fullPage: false });
      const answer = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/model-versions/${parent}/compress/`));
      await page.getByTestId('compress-submit').click();
      const response = await answer;
      if (response.status() !== 202) fail(`compress answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      const body = JSON.parse(response.request().postData() || '{}');
      result.sent = body;
      const compression = await response.json();
      result.compression = compression.id;
      await page.waitForURL((url) => url.pathname === `/compressions/${compression.id}`);
      await page.getByTestId('compression-view').waitFor();
    });

    await step('the job runs, then the report shows (table and chart)', async () => {
      const seen = new Set();
      const deadline = Date.now() + 9 * 60_000;
      for (;;) {
        const view = page.getByTestId('compression-view');
        const status = await view.getAttribute('data-status');
        if (status) seen.add(status);
        if ((await view.getAttribute('data-has-report')) === 'true') break;
        if (status === 'failed' || status === 'cancelled') fail(`the compression job ${status}: ${await page.getByTestId('compression-failed').innerText().catch(() => '')}`);
        if (Date.now() > deadline) fail(`no report after 9 minutes (statuses seen: ${[...seen].join(', ')})`);
        if (seen.has('running') && !result.progressShown) result.progressShown = await page.locator('[data-testid^="job-progress-"]').count() > 0;
        await page.waitForTimeout(1000);
      }
      result.statuses = [...seen];
      const rows = page.locator('[data-testid="compression-table"] tbody tr');
      result.rows = await rows.count();
      result.rowIds = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')));
      result.variantVersions = await rows.evaluateAll((trs) => trs.slice(1).map((tr) => Number(tr.getAttribute('data-model-version'))));
      result.sizes = await page.locator('[data-testid^="compression-size-"]').evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-bytes'))));
      const chart = page.getByTestId('compression-chart');
      await chart.scrollIntoViewIfNeeded();
      await chart.locator('.recharts-scatter-symbol, .recharts-symbols').first().waitFor();
      result.chartPoints = await chart.locator('.recharts-scatter-symbol').count();
      result.chartLegend = await chart.locator('.mantine-ScatterChart-legendItem, [class*="legendItem"]').allInnerTexts().catch(() => []);
      await screenshot(page, 'compression-report');
    });

    await step('measure in this browser (onnxruntime-web, wasm) and save the times', async () => {
      const saved = [];
      page.on('response', (response) => {
        if (isApi(response, 'POST', `/api/v1/compressions/${result.compression}/browser-latency/`)) saved.push(response.status());
      });
      await page.getByTestId('compression-measure').click();
      const cells = page.locator('[data-testid^="compression-browser-"]');
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid^="compression-browser-"]')].every((cell) => ['done', 'error'].includes(cell.getAttribute('data-state') ?? '')),
        null,
        { timeout: 180_000 },
      );
      const states = await cells.evaluateAll((list) => list.map((cell) => ({ id: cell.getAttribute('data-testid'), state: cell.getAttribute('data-state'), median: Number(cell.getAttribute('data-median')), text: cell.textContent })));
      result.browser = states;
      const failed = states.filter((cell) => cell.state !== 'done');
      if (failed.length) {
        await page.locator('[data-testid^="compression-browser-"][data-state="error"]').first().hover();
        const tip = await page.getByRole('tooltip').innerText().catch(() => '');
        fail(`the browser could not time ${failed.map((cell) => cell.id).join(', ')}: ${tip}`);
      }
      const until = Date.now() + 15_000;
      while (saved.length < states.length && Date.now() < until) await page.waitForTimeout(200);
      result.saved = saved;
      await page.waitForFunction(() => !document.querySelector('[data-testid="compression-measure"]')?.disabled);
      result.wasm = wasm;
      await screenshot(page, 'compression-browser-latency');
    });

    await step("the parent's page lists the compression", async () => {
      const response = await page.goto(`${baseUrl}/model-versions/${parent}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const row = page.getByTestId(`compressions-list-${result.compression}`);
      await row.waitFor();
      result.parentListText = (await row.innerText()).trim();
    });

    await step("a variant's page says which version it was compressed from", async () => {
      const variant = result.variantVersions[0];
      const response = await page.goto(`${baseUrl}/model-versions/${variant}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const lineage = page.getByTestId('compression-lineage');
      await lineage.waitFor();
      await page.getByTestId('compression-lineage-parent').waitFor();
      // the parent's name replaces its id once the parent version is read
      await page.waitForFunction(() => !document.querySelector('[data-testid="compression-lineage-parent"]')?.textContent?.startsWith('#'));
      result.lineageText = (await lineage.innerText()).trim();
      result.lineageParentHref = await page.getByTestId('compression-lineage-parent').getAttribute('href');
      await screenshot(page, 'compressed-version', { fullPage: false });
    });
  } catch (error) {
    await screenshot(page, 'failure').catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
  result.foreign = foreign;
  if (foreign.length) fail(`requests to other origins: ${foreign.slice(0, 5).join(', ')}`);
  if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
  log('every check passed');
  console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
  return 0;
}

run(main);
