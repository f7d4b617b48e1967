#!/usr/bin/env node
// Browser e2e of AutoML, driven through the real UI of a live Sampan server: log in -> AutoML
// studies -> new study -> pick the project, dataset and version -> edit the template's search
// space (keep learning rate and augmentation) -> small budget with 2 parallel trials and pruning ->
// start -> watch trials arrive live in the trials table -> wait for the study to complete ->
// promote the best trial -> follow the link to the new model version.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_PROJECT, E2E_DATASET, E2E_VERSION (ids of a trainable image dataset version),
//      E2E_TRIALS (default 3), E2E_EPOCHS (default 2), E2E_ARTIFACTS (default ./e2e-artifacts),
//      CHROMIUM_PATH (default /usr/bin/chromium), E2E_STUDY_TIMEOUT_S (default 900).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line (and failure.png) otherwise.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const projectId = Number(process.env.E2E_PROJECT);
const datasetId = Number(process.env.E2E_DATASET);
const versionId = Number(process.env.E2E_VERSION);
const trials = Number(process.env.E2E_TRIALS || 3);
const epochs = Number(process.env.E2E_EPOCHS || 2);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });
const studyTimeoutMs = Number(process.env.E2E_STUDY_TIMEOUT_S || 900) * 1000;
const STEP_TIMEOUT_MS = 20_000;

async function rowCount(page) {
  return Number((await page.getByTestId('trials-table').getAttribute('data-rows')) || 0);
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (![projectId, datasetId, versionId].every(Number.isInteger)) fail('E2E_PROJECT, E2E_DATASET and E2E_VERSION must be ids');
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, version #${versionId}, ${trials} trials of ${epochs} epochs`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pageErrors = collectPageErrors(page);
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400 && url.pathname.startsWith('/api/') && url.pathname !== '/api/v1/auth/me/')
      log(`${response.request().method()} ${url.pathname} answered ${response.status()}`);
  });

  try {
    await step('log in', async () => {
      await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(/\/workspaces\/?$/);
    });

    await step('open AutoML studies and start a new one', async () => {
      await page.getByTestId('nav-studies').click();
      await page.waitForURL(/\/studies\/?$/);
      await page.getByTestId('new-study').click();
      await page.waitForURL(/\/studies\/new/);
    });

    await step('pick the project, dataset and version', async () => {
      await page.locator(`[data-testid="study-project"] option[value="${projectId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-project').selectOption(String(projectId));
      await page.locator(`[data-testid="study-dataset"] option[value="${datasetId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-dataset').selectOption(String(datasetId));
      await page.locator(`[data-testid="study-version"] option[value="${versionId}"]`).waitFor({ state: 'attached' });
      await page.getByTestId('study-version').selectOption(String(versionId));
      await page.getByTestId('dim-0').waitFor();
    });

    await step('edit the search space: keep learning rate and augmentation, show a validation error, fix it', async () => {
      const editor = page.getByTestId('search-space-editor');
      for (let index = Number(await editor.getAttribute('data-dimensions')) - 1; index >= 0; index -= 1) {
        const name = await page.getByTestId(`dim-${index}-name`).inputValue();
        if (name !== 'learning_rate' && name !== 'augmentation') await page.getByTestId(`dim-${index}-remove`).click();
      }
      if ((await editor.getAttribute('data-dimensions')) !== '2') fail('the default search space has no learning_rate and augmentation');
      const lrIndex = (await page.getByTestId('dim-0-name').inputValue()) === 'learning_rate' ? 0 : 1;
      await page.getByTestId(`dim-${lrIndex}-high`).fill('0.00001');
      await page.getByTestId('study-submit').click();
      await page.getByText('Must be greater than low').waitFor();
      await page.getByTestId(`dim-${lrIndex}-low`).fill('0.0005');
      await page.getByTestId(`dim-${lrIndex}-high`).fill('0.02');
      await page.getByTestId('study-preset').selectOption('fast');
      await page.getByTestId('study-fixed-params').fill(JSON.stringify({ epochs, image_size: 32, model: 'cnn_small' }));
      await page.getByTestId('study-name').fill('e2e digits search');
      await page.getByTestId('study-n-trials').fill(String(trials));
      await page.getByTestId('study-parallelism').fill('2');
      await page.getByTestId('study-pruner').selectOption('median');
      await page.getByTestId('study-report-seeds').fill('0');
      await screenshot(page, 'study-form');
    });

    const studyId = await step('start the study', async () => {
      await page.getByTestId('study-submit').click();
      await page.waitForURL(/\/studies\/\d+$/);
      return Number(new URL(page.url()).pathname.split('/').pop());
    });

    await step('watch trials arrive live', async () => {
      await page.getByTestId('trials-table').waitFor();
      // the table may render before its first rows arrive (the trials are read apart from the study)
      await page
        .waitForFunction(() => Number(document.querySelector('[data-testid="trials-table"]')?.getAttribute('data-rows')) >= 1, null, {
          timeout: 30_000,
        })
        .catch(() => {});
      const first = await rowCount(page);
      if (first < 1 || first > 2) fail(`the study started with ${first} trials; parallelism is 2`);
      await page.waitForFunction(
        (expected) => Number(document.querySelector('[data-testid="trials-table"]')?.getAttribute('data-rows')) >= expected,
        trials,
        { timeout: studyTimeoutMs },
      );
      log(`trials table grew from ${first} to ${await rowCount(page)} rows without a reload`);
      await page.waitForFunction(() => document.querySelector('[data-testid="study-view"]')?.getAttribute('data-status') === 'completed', null, {
        timeout: studyTimeoutMs,
      });
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-history"]')?.getAttribute('data-points')) > 0, null, {
        timeout: 30_000,
      });
      await screenshot(page, 'study-completed');
    });

    const modelVersionId = await step('promote the best trial and open the new model version', async () => {
      await page.getByTestId('promote-best').click();
      const link = page.getByTestId('promoted-model-version');
      await link.waitFor();
      const text = (await link.innerText()).trim();
      await link.click();
      await page.waitForURL(/\/model-versions\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'model-version');
      log(`${text} -> model version #${id}`);
      return id;
    });

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: study #${studyId}, model version #${modelVersionId}`);
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
