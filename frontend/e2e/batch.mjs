#!/usr/bin/env node
// Batch prediction through the real UI of a live Sampan server: a model version's page ->
// "Batch predict" -> its own dataset version, test split (the dialog's defaults) -> Start -> the run
// appears in the page's list, its status live until it succeeds -> the metrics shown -> the CSV
// downloaded by its button. No page error, console error or CSP violation.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_MODEL_VERSION (id of a model version trained on
//      a dataset version), E2E_PROJECT (its project: the run is then looked for under the project's
//      Batch tab too), E2E_ARTIFACTS (screenshots and the download), CHROMIUM_PATH,
//      E2E_BATCH_TIMEOUT_S (default 300).
// Writes E2E_ARTIFACTS/batch.csv; prints "[e2e] RESULT {...}" (the batch id, the statuses seen, the
// metrics shown); exit 0 when every step passed, 1 with "[e2e] FAILED: ..." otherwise.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, isApi, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const modelVersionId = Number(process.env.E2E_MODEL_VERSION);
const projectId = process.env.E2E_PROJECT || '';
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || './e2e-artifacts/batch');
const timeoutMs = Number(process.env.E2E_BATCH_TIMEOUT_S || 300) * 1000;
const screenshot = screenshots(artifacts);

async function main() {
  if (!Number.isInteger(modelVersionId) || modelVersionId < 1) fail(`E2E_MODEL_VERSION must be a model version id, got ${process.env.E2E_MODEL_VERSION}`);
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Content Security Policy/i.test(message.text())) errors.push(`console error: ${message.text()}`);
  });
  const result = { statuses: [] };
  try {
    await step('sign in through the API', async () => {
      await context.request.get(`${baseUrl}/api/v1/auth/csrf/`);
      const token = (await context.cookies()).find((cookie) => cookie.name === 'csrftoken')?.value ?? '';
      const login = await context.request.post(`${baseUrl}/api/v1/auth/login/`, {
        data: { username: process.env.SAMPAN_USER, password: process.env.SAMPAN_PASSWORD },
        headers: { 'X-CSRFToken': token, Referer: `${baseUrl}/login` },
      });
      if (!login.ok()) fail(`login answered ${login.status()}: ${await login.text()}`);
    });

    await step(`open /model-versions/${modelVersionId}: no batch prediction yet`, async () => {
      const response = await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('batch-runs-empty').waitFor();
    });

    await step('Batch predict: its own dataset version, test split, CSV and JSONL', async () => {
      await page.getByTestId('batch-predict').click();
      const version = page.getByTestId('batch-version');
      await version.waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="batch-version"]')?.value !== '', null, { timeout: 20_000 });
      result.version = await version.inputValue();
      const split = await page.getByTestId('batch-split').locator('input:checked').getAttribute('value');
      if (split !== 'test') fail(`the dialog's split is ${split}, not test`);
      for (const format of ['jsonl', 'csv']) {
        if (!(await page.getByTestId(`batch-format-${format}`).isChecked())) fail(`${format} is not ticked`);
      }
      await screenshot(page, 'dialog');
      const created = page.waitForResponse((r) => isApi(r, 'POST', '/api/v1/batch-predictions/'));
      created.catch(() => {});
      await page.getByTestId('batch-predict-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /batch-predictions/ answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      result.id = body.id;
      if (body.source.split !== 'test' || body.model_version !== modelVersionId) fail(`created ${JSON.stringify(body.source)} of ${body.model_version}`);
      log(`batch prediction ${body.id} of ${result.version} (test split) created, ${body.status}`);
    });

    await step('the run is listed and its status follows the job until it succeeds', async () => {
      const badge = page.getByTestId(`batch-status-${result.id}`);
      await badge.waitFor();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await badge.getAttribute('data-status');
        if (result.statuses.at(-1) !== status) {
          result.statuses.push(status);
          log(`status ${status}`);
          if (status === 'running' && (await page.getByTestId(`batch-progress-${result.id}`).count())) result.progressSeen = true;
        }
        if (status === 'succeeded') break;
        if (status === 'failed' || status === 'cancelled') fail(`the batch ${status}: ${await page.getByTestId(`batch-row-${result.id}`).innerText()}`);
        if (Date.now() > deadline) fail(`still ${status} after ${timeoutMs / 1000} s`);
        await page.waitForTimeout(250);
      }
      result.rowsText = (await page.getByTestId(`batch-rows-${result.id}`).innerText()).trim();
      const metrics = page.getByTestId(`batch-metrics-${result.id}`).locator('[data-metric]');
      result.metrics = {};
      for (let i = 0; i < (await metrics.count()); i += 1) {
        const badge = metrics.nth(i);
        result.metrics[await badge.getAttribute('data-metric')] = Number(await badge.getAttribute('data-value'));
      }
      if (!('accuracy' in result.metrics)) fail(`no accuracy shown: ${JSON.stringify(result.metrics)}`);
      await screenshot(page, 'succeeded', { fullPage: true });
    });

    await step('download the CSV by its button', async () => {
      const button = page.getByTestId(`batch-download-${result.id}-csv`);
      const href = await button.getAttribute('href');
      if (!href || !href.includes(`/batch-predictions/${result.id}/download/`) || !href.includes('format=csv')) fail(`the CSV button links to ${href}`);
      const downloading = page.waitForEvent('download', { timeout: 60_000 });
      await button.click();
      const download = await downloading;
      const failure = await download.failure();
      if (failure) fail(`the download failed: ${failure}`);
      const file = path.join(artifacts, 'batch.csv');
      await download.saveAs(file);
      result.csv = { file, name: download.suggestedFilename(), size: (await stat(file)).size };
      log(`saved ${file} (${result.csv.name}, ${result.csv.size} bytes)`);
    });

    if (projectId) {
      await step(`the run is listed under the project's Batch tab with its downloads`, async () => {
        const response = await page.goto(`${baseUrl}/projects/${projectId}/batch`, { waitUntil: 'load' });
        if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
        await page.locator(`[data-testid="tab-batch"][aria-selected="true"]`).waitFor();
        const row = page.getByTestId(`batch-row-${result.id}`);
        await row.waitFor();
        if ((await row.getAttribute('data-status')) !== 'succeeded') fail(`the project's list shows ${await row.getAttribute('data-status')}`);
        await page.getByTestId(`batch-download-${result.id}-jsonl`).waitFor();
        result.projectRow = (await row.innerText()).replace(/\s+/g, ' ').trim();
        await screenshot(page, 'project-batch-tab', { fullPage: true });
      });
    }

    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } catch (error) {
    await screenshot(page, 'failure', { fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

run(main);
