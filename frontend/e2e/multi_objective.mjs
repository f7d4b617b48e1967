#!/usr/bin/env node
// Browser e2e of deployment-aware AutoML, through the real UI of a live Sampan server: log in ->
// Deployment targets (register a profile with a latency budget, see the builtins next to it) ->
// AutoML studies -> new study -> pick the dataset version -> switch on "Optimize for deployment"
// (accuracy against latency on the target; the new profile as target) -> NSGA-II, a tiny budget ->
// start -> wait for the study to complete -> the Pareto chart shows the trials with the front ->
// pick a point of the front -> Promote -> follow the link to the new model version.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_WORKSPACE, E2E_PROJECT, E2E_DATASET, E2E_VERSION,
//      E2E_TRIALS (default 3), E2E_EPOCHS (default 1), E2E_ARTIFACTS, CHROMIUM_PATH,
//      E2E_STUDY_TIMEOUT_S (default 900).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line (and failure.png) otherwise.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const workspaceId = Number(process.env.E2E_WORKSPACE);
const projectId = Number(process.env.E2E_PROJECT);
const datasetId = Number(process.env.E2E_DATASET);
const versionId = Number(process.env.E2E_VERSION);
const trials = Number(process.env.E2E_TRIALS || 3);
const epochs = Number(process.env.E2E_EPOCHS || 1);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });
const studyTimeoutMs = Number(process.env.E2E_STUDY_TIMEOUT_S || 900) * 1000;
const PROFILE = 'e2e-kiosk';

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (![workspaceId, projectId, datasetId, versionId].every(Number.isInteger)) fail('E2E_WORKSPACE, E2E_PROJECT, E2E_DATASET and E2E_VERSION must be ids');
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, version #${versionId}, ${trials} trials of ${epochs} epochs`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors = collectPageErrors(page);
  logFailedCalls(page);

  try {
    await step('log in', () => logIn(page, baseUrl, username, password));

    await step('register a target profile (a validation error first)', async () => {
      await page.getByTestId('nav-targets').click();
      await page.waitForURL(/\/targets/);
      await page.locator(`[data-testid="targets-workspace"] option[value="${workspaceId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('targets-workspace').selectOption(String(workspaceId));
      await page.getByTestId('target-row-worker-cpu').waitFor();
      await page.getByTestId('target-create').click();
      await page.getByTestId('target-save').click();
      await page.getByText('Give the profile a name.').waitFor();
      await page.getByTestId('target-name').fill(PROFILE);
      await page.getByTestId('target-description').fill('A kiosk twice as slow as the worker');
      await page.getByTestId('target-slowdown').fill('2');
      await page.getByTestId('target-latency-budget').fill('500');
      await page.getByTestId('target-save').click();
      await page.getByTestId(`target-row-${PROFILE}`).waitFor();
      await screenshot(page, 'targets');
    });

    await step('open a new study and pick the dataset version', async () => {
      await page.getByTestId('nav-studies').click();
      await page.waitForURL(/\/studies\/?$/);
      await page.getByTestId('new-study').click();
      await page.waitForURL(/\/studies\/new/);
      await page.locator(`[data-testid="study-project"] option[value="${projectId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-project').selectOption(String(projectId));
      await page.locator(`[data-testid="study-dataset"] option[value="${datasetId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-dataset').selectOption(String(datasetId));
      await page.locator(`[data-testid="study-version"] option[value="${versionId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-version').selectOption(String(versionId));
      await page.getByTestId('dim-0').waitFor();
    });

    await step('search learning rate only, for accuracy against latency on the new target', async () => {
      const editor = page.getByTestId('search-space-editor');
      for (let index = Number(await editor.getAttribute('data-dimensions')) - 1; index >= 0; index -= 1) {
        if ((await page.getByTestId(`dim-${index}-name`).inputValue()) !== 'learning_rate') await page.getByTestId(`dim-${index}-remove`).click();
      }
      await page.getByTestId('study-preset').selectOption('fast');
      await page.getByTestId('study-fixed-params').fill(JSON.stringify({ epochs, image_size: 32, model: 'cnn_small' }));
      await page.getByTestId('study-deployment-aware').check({ force: true });
      if ((await page.getByTestId('objective-1-metric').inputValue()) !== 'latency_ms') fail('the second objective is not latency on the target');
      const profileOption = page.locator(`[data-testid="study-target-profile"] option`, { hasText: PROFILE });
      await profileOption.waitFor({ state: 'attached' });
      await page.getByTestId('study-target-profile').selectOption(await profileOption.getAttribute('value'));
      await page.getByTestId('study-sampler').selectOption('nsga2');
      await page.getByTestId('study-name').fill('e2e accuracy vs latency');
      await page.getByTestId('study-n-trials').fill(String(trials));
      await page.getByTestId('study-parallelism').fill('1');
      await page.getByTestId('study-report-seeds').fill('0');
      await screenshot(page, 'study-form');
    });

    const studyId = await step('start the study and wait for it to complete', async () => {
      await page.getByTestId('study-submit').click();
      await page.waitForURL(/\/studies\/\d+$/);
      await page.getByTestId('pareto-panel').waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="study-view"]')?.getAttribute('data-status') === 'completed', null, {
        timeout: studyTimeoutMs,
      });
      return Number(new URL(page.url()).pathname.split('/').pop());
    });

    const chosen = await step('see the trials on the Pareto chart with the front', async () => {
      // the trials list is polled apart from the study: it can still show the last trial running for one
      // poll (2 s) after the study reads completed, so wait until the chart and the front table agree
      await page.waitForFunction(
        () => {
          const front = document.querySelectorAll('[data-testid^="pareto-point-"][data-kind="front"]').length;
          const rows = Number(document.querySelector('[data-testid="pareto-front-table"]')?.getAttribute('data-rows'));
          return front > 0 && front === rows;
        },
        null,
        { timeout: 30_000 },
      );
      const points = Number(await page.getByTestId('chart-pareto').getAttribute('data-points'));
      const front = page.locator('[data-testid^="pareto-point-"][data-kind="front"]');
      if ((await front.count()) < 1) fail(`no point of ${points} is on the front`);
      const rows = Number(await page.getByTestId('pareto-front-table').getAttribute('data-rows'));
      if (rows !== (await front.count())) fail(`the front table has ${rows} rows, the chart ${await front.count()} front points`);
      await screenshot(page, 'pareto');
      log(`${points} trials charted, ${rows} on the front`);
      return Number((await front.first().getAttribute('data-testid')).split('-').pop());
    });

    const modelVersionId = await step('pick a point of the front, promote it and open the model version', async () => {
      await page.getByTestId(`pareto-point-${chosen}`).click();
      const details = page.getByTestId('pareto-selected');
      await details.waitFor();
      if ((await details.getAttribute('data-trial')) !== String(chosen)) fail('the picked point does not show its trial');
      await details.getByTestId(`front-${chosen}-promote`).click();
      const link = details.getByTestId(`front-${chosen}-model-version`);
      await link.waitFor({ timeout: 60_000 });
      await link.click();
      await page.waitForURL(/\/model-versions\/\d+$/);
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'model-version');
      return Number(new URL(page.url()).pathname.split('/').pop());
    });

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: study #${studyId}, trial ${chosen} -> model version #${modelVersionId}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

process.on('unhandledRejection', () => {});

run(main);
