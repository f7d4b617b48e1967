#!/usr/bin/env node
// Browser e2e of the time-series forecasting template through the real UI of a live Sampan server:
// log in -> workspace -> project -> a "Time-series forecasting" dataset -> choose a long-format CSV of
// several series, check the mapping step (timestamp, series id and target suggested; the known
// covariates and the static one picked here) and import -> the profile with its series chart drawn ->
// a version with a horizon -> train with the fast preset -> wait for the job -> the model version's
// forecast report (headline, forecast plot with its interval band, per-series table, by-horizon chart,
// backtest table) -> Deploy -> Hosted API -> a key (shown once) -> Try it: paste a series' history,
// press Forecast, the forecast chart is drawn with the horizon the API answered. The deployment, the key,
// the body the panel sent and the answer are written to E2E_ARTIFACTS/forecast.json for the Python
// side to send the same body to the hosted API and compare.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_FILE (the CSV), E2E_HORIZON, E2E_HISTORY (the text
//      to paste into the Try it box), E2E_SERIES_COLUMN, E2E_KNOWN (comma-separated known covariates to
//      pick), E2E_STATIC (comma-separated static covariates to pick), E2E_ARTIFACTS, CHROMIUM_PATH,
//      E2E_TRAIN_TIMEOUT_S (default 600).
// Prints "PASSED: ... model version #N" and exits 0, or a "FAILED: ..." line and exits 1.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const filePath = process.env.E2E_FILE;
const horizon = Number(process.env.E2E_HORIZON || 14);
const history = process.env.E2E_HISTORY || '';
const seriesColumn = process.env.E2E_SERIES_COLUMN || 'store';
const known = (process.env.E2E_KNOWN || '').split(',').filter(Boolean);
const statics = (process.env.E2E_STATIC || '').split(',').filter(Boolean);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });
const trainTimeoutMs = Number(process.env.E2E_TRAIN_TIMEOUT_S || 600) * 1000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

function idFromUrl(page) {
  return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
}

function posted(page, pathname, timeout = 120_000) {
  const wait = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === pathname, { timeout });
  wait.catch(() => {});
  return wait;
}

/** Picks `name` in a Mantine Select or MultiSelect (options read "name (type)"). */
async function pick(page, testId, name) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: new RegExp(`^${name}( \\(|$)`) }).last().click();
  await page.keyboard.press('Escape');
}

/** Waits until the element's numeric attribute satisfies `ok`; returns its value. */
async function attributeNumber(page, testId, attribute, ok, what) {
  const locator = page.getByTestId(testId).first();
  await locator.waitFor();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = Number(await locator.getAttribute(attribute));
    if (ok(value)) return value;
    if (Date.now() > deadline) fail(`${what}: ${testId} has ${attribute}=${value}`);
    await page.waitForTimeout(250);
  }
}

/** The chart under `testId` has drawn a path with points (an SVG line, not an empty frame). */
async function drawn(page, testId) {
  const paths = page.getByTestId(testId).first().locator('svg path');
  await paths.first().waitFor({ state: 'attached' });
  const lengths = await paths.evaluateAll((nodes) => nodes.map((node) => (node.getAttribute('d') || '').length));
  if (!lengths.some((length) => length > 20)) fail(`${testId} drew no line (path lengths ${lengths.join(', ')})`);
}

async function main() {
  if (!username || !password || !filePath || !history) fail('SAMPAN_USER, SAMPAN_PASSWORD, E2E_FILE and E2E_HISTORY must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors = collectPageErrors(page);
  logFailedCalls(page);
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  try {
    await step('log in', () => logIn(page, baseUrl, username, password));
    await step('create a workspace and a project', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(`e2e forecasting ${suffix}`);
      await page.getByTestId('workspace-create-submit').click();
      await page.waitForURL(/\/workspaces\/\d+\/?$/);
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(`sales ${suffix}`);
      await page.getByTestId('project-create-submit').click();
      await page.waitForURL(/\/projects\/\d+\/?$/);
    });
    const datasetId = await step('create a Time-series forecasting dataset', async () => {
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(`store sales ${suffix}`);
      await page.getByTestId('dataset-task-type').click();
      await page.getByRole('option', { name: 'Time-series forecasting' }).first().click();
      await page.getByTestId('dataset-create-submit').click();
      await page.waitForURL(/\/datasets\/\d+\/import\/?$/);
      return idFromUrl(page);
    });
    const batch = await step(`choose ${path.basename(filePath)}, map the columns and import`, async () => {
      const preview = posted(page, `/api/v1/datasets/${datasetId}/imports/preview/`);
      await page.getByTestId('table-file-input').setInputFiles(filePath);
      const answer = await preview;
      if (answer.status() !== 200) fail(`the preview answered ${answer.status()}: ${await answer.text()}`);
      await page.getByTestId('ts-mapping').waitFor();
      const timestamp = await page.getByTestId('ts-timestamp-column').inputValue();
      if (!timestamp.startsWith('date')) fail(`the timestamp column suggested is "${timestamp}", not date`);
      if (!(await page.getByTestId('ts-series-column').inputValue()).startsWith(seriesColumn)) await pick(page, 'ts-series-column', seriesColumn);
      log(`suggested: timestamp ${timestamp}, series ${await page.getByTestId('ts-series-column').inputValue()}, frequency ${await page.getByTestId('ts-frequency').inputValue()}`);
      for (const name of known) await pick(page, 'ts-known-covariates', name);
      for (const name of statics) await pick(page, 'ts-static-covariates', name);
      await screenshot(page, 'mapping');
      const created = posted(page, `/api/v1/datasets/${datasetId}/imports/`);
      await page.getByTestId('table-import').click();
      const response = await created;
      if (response.status() !== 201) fail(`the import answered ${response.status()}: ${await response.text()}`);
      // Chromium does not expose a body with a file part to the page's observers: the mapping the
      // import kept is checked on the dataset's schema by the Python side.
      const sent = (response.request().postDataBuffer() ?? Buffer.alloc(0)).toString('latin1');
      if (sent) {
        for (const name of [...known, ...statics, seriesColumn]) {
          if (!new RegExp(`\r\n\r\n${name}\r\n`).test(sent)) fail(`the import request does not carry the column ${name}`);
        }
      }
      const body = await response.json();
      await page.getByTestId(`import-status-${body.id}`).waitFor();
      log(`import #${body.id}: ${body.imported} rows`);
      if (body.imported < 10) fail(`only ${body.imported} rows imported`);
      return body;
    });
    await step('see the series profile and its chart', async () => {
      await page.getByTestId('tab-statistics').click();
      await page.getByTestId('series-profile').waitFor({ timeout: 60_000 });
      const count = Number(((await page.getByTestId('series-stat-count').innerText()) || '').replace(/\D/g, ''));
      log(`profile: ${count} series, frequency ${(await page.getByTestId('series-stat-frequency').innerText()).replace(/\s+/g, ' ')}`);
      await attributeNumber(page, 'series-chart', 'data-points', (n) => n > 0, 'the series chart');
      await drawn(page, 'series-chart');
      await screenshot(page, 'profile');
    });
    await step(`create a version with horizon ${horizon}`, async () => {
      await page.getByTestId('tab-versions').click();
      await page.getByTestId('version-horizon').fill(String(horizon));
      const created = posted(page, `/api/v1/datasets/${datasetId}/versions/`);
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
      const version = await response.json();
      if (version.horizon !== horizon) fail(`the version's horizon is ${version.horizon}`);
    });
    const jobId = await step('train with the fast preset', async () => {
      await page.getByTestId('tab-train').click();
      await page.getByTestId('training-form').waitFor();
      await page.getByTestId('preset-card-fast').click();
      const created = posted(page, '/api/v1/training-jobs/');
      await page.getByTestId('training-start').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/training-jobs/ answered ${response.status()}: ${await response.text()}`);
      const job = await response.json();
      await page.waitForURL(new RegExp(`/jobs/${job.id}/?$`));
      return job.id;
    });
    await step(`wait for job #${jobId}`, async () => {
      const badge = page.getByTestId('job-detail-status');
      const deadline = Date.now() + trainTimeoutMs;
      for (;;) {
        const status = ((await badge.textContent()) || '').trim();
        if (TERMINAL.has(status)) {
          if (status !== 'succeeded') fail(`job #${jobId} ${status}: ${await page.getByTestId('job-error').innerText().catch(() => '')}`);
          break;
        }
        if (Date.now() > deadline) fail(`job #${jobId} still ${status}`);
        await page.waitForTimeout(500);
      }
      await screenshot(page, 'job');
    });
    const modelVersionId = await step("open the model version's forecast report", async () => {
      await page.getByTestId('training-model-link').click();
      await page.waitForURL(/\/model-versions\/\d+\/?$/);
      await page.getByTestId('forecast-report').waitFor({ timeout: 60_000 });
      log(`report: ${(await page.getByTestId('forecast-summary').innerText()).replace(/\s+/g, ' ')}`);
      log(`MASE ${(await page.getByTestId('forecast-mase').innerText()).replace(/\s+/g, ' ')}`);
      const plotted = await attributeNumber(page, 'forecast-plot', 'data-horizon', (n) => n === horizon, 'the forecast plot');
      if ((await page.getByTestId('forecast-plot').first().getAttribute('data-band')) === null) fail('the forecast plot has no interval band');
      await page.getByTestId('forecast-plot-band').first().waitFor({ state: 'attached' });
      await drawn(page, 'forecast-plot');
      await attributeNumber(page, 'forecast-horizon-chart', 'data-steps', (n) => n === horizon, 'the by-horizon chart');
      await page.getByTestId('forecast-series-table').waitFor();
      await page.getByTestId('forecast-backtest').waitFor();
      log(`forecast plot over ${plotted} steps with its band; series table, by-horizon chart and backtest shown`);
      await screenshot(page, 'report');
      return idFromUrl(page);
    });
    const deploymentId = await step('deploy it as a hosted API', async () => {
      await page.getByTestId('deploy-hosted').click();
      await page.getByTestId('deployment-name-input').fill(`sales-${suffix}`);
      const created = posted(page, '/api/v1/deployments/');
      await page.getByTestId('deployment-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/deployments/ answered ${response.status()}: ${await response.text()}`);
      const deployment = await response.json();
      if (deployment.model_version !== modelVersionId) fail(`the deployment serves #${deployment.model_version}, not #${modelVersionId}`);
      await page.waitForURL(new RegExp(`/deployments/${deployment.id}/keys/?$`));
      return deployment.id;
    });
    const secret = await step('create a key and see it once', async () => {
      await page.getByTestId('create-deployment-key').click();
      await page.getByTestId('deployment-key-name-input').fill('e2e');
      const created = posted(page, `/api/v1/deployments/${deploymentId}/keys/`);
      await page.getByTestId('deployment-key-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST keys answered ${response.status()}: ${await response.text()}`);
      const shown = (await page.getByTestId('deployment-key-secret').innerText()).trim();
      if (!shown.startsWith('spd_')) fail('the key shown is not an spd_ key');
      await page.getByTestId('deployment-key-done').click();
      return shown;
    });
    const tried = await step('try it: paste a history, Forecast, see the forecast chart', async () => {
      await page.getByTestId('deployment-tab-try').click();
      await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
      await page.getByTestId('forecast-history-input').fill(history);
      const called = posted(page, `/api/v1/deployments/${deploymentId}/try/`);
      await page.getByTestId('forecast-submit').click();
      const response = await called;
      if (response.status() !== 200) fail(`try answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      const body = await response.json();
      if (body.kind !== 'forecast_prediction') fail(`try answered kind ${body.kind}`);
      const prediction = body.predictions[0];
      if (prediction.mean.length !== horizon) fail(`the forecast has ${prediction.mean.length} steps, not ${horizon}`);
      const chart = page.getByTestId('forecast-result-chart');
      await chart.first().waitFor();
      const shownHorizon = await chart.first().getAttribute('data-horizon');
      if (shownHorizon !== null && Number(shownHorizon) !== horizon) fail(`the result chart shows ${shownHorizon} steps`);
      await drawn(page, 'forecast-result-chart');
      await screenshot(page, 'try-it');
      log(`try it: ${prediction.id} forecast ${prediction.timestamps[0]} .. ${prediction.timestamps.at(-1)}, mean[0] ${prediction.mean[0]}`);
      return { sent, answer: body };
    });
    await writeFile(
      path.join(artifacts, 'forecast.json'),
      JSON.stringify({ dataset: datasetId, import_batch: batch.id, job: jobId, model_version: modelVersionId, deployment: deploymentId, key: secret, ...tried }, null, 2),
    );
    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: dataset #${datasetId}, job #${jobId}, model version #${modelVersionId}, deployment #${deploymentId}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

run(main);
