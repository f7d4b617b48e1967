#!/usr/bin/env node
// Browser e2e of the text and tabular templates through the real UI of a live Sampan server:
// log in -> workspace -> project -> a text or tabular dataset -> choose a table file, check the
// column mapping step (preview, suggested columns) and import -> see the texts in the labeling
// grid (text) or the profile charts (tabular) -> make a version -> train with the fast preset ->
// wait for the job -> open the model version's evaluation report -> (classification, with E2E_DEPLOY=1)
// Deploy -> Hosted API -> create a key (shown once) -> Try it with a text or a table row (the
// example-row button, then E2E_ROW when given) -> the label shown is the API's -> the call is
// counted in the usage panel. The deployment, the key, the input and the label shown are written to
// E2E_ARTIFACTS/deploy.json for the Python side to call the API with the same input and compare.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_TASK (text_classification |
//      tabular_classification | tabular_regression), E2E_FILE (the table file), E2E_LABEL_COLUMN (text: the label
//      column to map), E2E_ARTIFACTS, CHROMIUM_PATH, E2E_TRAIN_TIMEOUT_S (default 600),
//      E2E_DEPLOY=1 to deploy and try it, E2E_TEXT (the text to try) or E2E_ROW (a JSON row to try),
//      E2E_EXPECT_READ (text the preview's "read as" badge must show, e.g. "decimal comma"),
//      E2E_DELIMITER (a delimiter option to pick in the preview step, e.g. "semicolon ;": the preview re-runs).
// Prints "PASSED: ... model version #N" and exits 0, or a "FAILED: ..." line and exits 1.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const task = process.env.E2E_TASK || 'tabular_classification';
const filePath = process.env.E2E_FILE;
const labelColumn = process.env.E2E_LABEL_COLUMN || '';
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });
const trainTimeoutMs = Number(process.env.E2E_TRAIN_TIMEOUT_S || 600) * 1000;
const deploy = process.env.E2E_DEPLOY === '1';
const tryText = process.env.E2E_TEXT || 'Return the square root of x.';
const tryRow = process.env.E2E_ROW || '';
const expectRead = process.env.E2E_EXPECT_READ || '';
const pickDelimiter = process.env.E2E_DELIMITER || '';
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const TASK_LABELS = {
  text_classification: 'Text classification',
  tabular_classification: 'Tabular classification',
  tabular_regression: 'Tabular regression',
};

function idFromUrl(page) {
  return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
}

function posted(page, pathname) {
  const wait = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === pathname, { timeout: 120_000 });
  wait.catch(() => {});
  return wait;
}

async function main() {
  if (!username || !password || !filePath) fail('SAMPAN_USER, SAMPAN_PASSWORD and E2E_FILE must be set');
  if (!TASK_LABELS[task]) fail(`E2E_TASK must be one of ${Object.keys(TASK_LABELS).join(', ')}`);
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors = collectPageErrors(page);
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  try {
    await step('log in', async () => {
      await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(/\/workspaces\/?$/);
    });
    await step('create a workspace and a project', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(`e2e ${task} ${suffix}`);
      await page.getByTestId('workspace-create-submit').click();
      await page.waitForURL(/\/workspaces\/\d+\/?$/);
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(`${task} ${suffix}`);
      await page.getByTestId('project-create-submit').click();
      await page.waitForURL(/\/projects\/\d+\/?$/);
    });
    const datasetId = await step(`create a ${TASK_LABELS[task]} dataset`, async () => {
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(`${task} ${suffix}`);
      await page.getByTestId('dataset-task-type').click();
      await page.getByRole('option', { name: TASK_LABELS[task] }).first().click();
      await page.getByTestId('dataset-create-submit').click();
      await page.waitForURL(/\/datasets\/\d+\/import\/?$/);
      return idFromUrl(page);
    });
    await step(`choose ${path.basename(filePath)}, check the column mapping step and import`, async () => {
      const preview = posted(page, `/api/v1/datasets/${datasetId}/imports/preview/`);
      await page.getByTestId('table-file-input').setInputFiles(filePath);
      const answer = await preview;
      if (answer.status() !== 200) fail(`the preview answered ${answer.status()}: ${await answer.text()}`);
      await page.getByTestId('table-mapping').waitFor();
      await page.getByTestId('table-preview').waitFor();
      const readAs = (await page.getByTestId('table-read-as').textContent()) ?? '';
      log(`read as: ${readAs}`);
      if (expectRead && !readAs.includes(expectRead)) fail(`the preview read the file as "${readAs}", not "${expectRead}"`);
      if (pickDelimiter) {
        const again = posted(page, `/api/v1/datasets/${datasetId}/imports/preview/`);
        await page.getByTestId('table-delimiter').click();
        await page.getByRole('option', { name: pickDelimiter }).last().click();
        const reread = await again;
        if (reread.status() !== 200) fail(`the preview with delimiter ${pickDelimiter} answered ${reread.status()}`);
        await page.getByTestId('table-mapping').waitFor();
        log(`picked delimiter ${pickDelimiter}; the preview re-ran`);
      }
      if (labelColumn) {
        await page.getByTestId('mapping-label-column').click();
        await page.getByRole('option', { name: new RegExp(`^${labelColumn} \\(`) }).last().click();
      }
      const chosen = await page.getByTestId(task === 'text_classification' ? 'mapping-text-column' : 'mapping-target-column').inputValue();
      log(`mapping suggested/chosen: ${chosen}${labelColumn ? `, labels from ${labelColumn}` : ''}`);
      await screenshot(page, 'mapping');
      const created = posted(page, `/api/v1/datasets/${datasetId}/imports/`);
      await page.getByTestId('table-import').click();
      const response = await created;
      if (response.status() !== 201) fail(`the import answered ${response.status()}: ${await response.text()}`);
      const batch = await response.json();
      await page.getByTestId(`import-status-${batch.id}`).waitFor();
      log(`import #${batch.id}: ${batch.imported} rows, ${batch.labels_created.length} labels`);
      if (batch.imported < 10) fail(`only ${batch.imported} rows imported`);
    });
    if (task === 'text_classification') {
      await step('see the texts in the labeling grid', async () => {
        await page.getByTestId('tab-label').click();
        await page.locator('[data-testid^="sample-text-"]').first().waitFor();
        await page.locator('[data-testid^="sample-tile-"]').first().click();
        await page.getByTestId('sample-preview-text').waitFor();
        await screenshot(page, 'labeling');
      });
    } else {
      await step('see the profile charts', async () => {
        await page.getByTestId('tab-statistics').click();
        await page.getByTestId('profile-target').waitFor();
        await page.locator('[data-testid^="profile-column-"]').first().waitFor();
        await screenshot(page, 'profile');
      });
    }
    await step('create a dataset version', async () => {
      await page.getByTestId('tab-versions').click();
      await page.getByTestId('version-seed').fill('7');
      const created = posted(page, `/api/v1/datasets/${datasetId}/versions/`);
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
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
    });
    const modelVersionId = await step("open the model version's evaluation report", async () => {
      await page.getByTestId('training-model-link').click();
      await page.waitForURL(/\/model-versions\/\d+\/?$/);
      if (task === 'tabular_regression') {
        // the regression report: MAE/RMSE/R², both residual plots drawn, feature importance
        await page.getByTestId('eval-r2').waitFor({ timeout: 30_000 });
        for (const id of ['eval-residual-plot', 'eval-predicted-vs-actual']) {
          const points = Number(await page.getByTestId(id).getAttribute('data-points'));
          if (!(points > 0)) fail(`${id} has no points`);
          await page.getByTestId(id).locator('.recharts-scatter-symbol').first().waitFor();
        }
        await page.getByTestId('eval-feature-importance').waitFor();
        if (await page.getByTestId('confusion-matrix').count()) fail('a regression report shows a confusion matrix');
        log(`test MAE ${await page.getByTestId('eval-mae').innerText()}, RMSE ${await page.getByTestId('eval-rmse').innerText()}, R² ${await page.getByTestId('eval-r2').innerText()}`);
      } else {
        await page.getByTestId('eval-accuracy').waitFor({ timeout: 30_000 });
        log(`test accuracy ${await page.getByTestId('eval-accuracy').innerText()}`);
        if (task === 'tabular_classification') await page.getByTestId('eval-feature-importance').waitFor();
        if (task === 'text_classification' && (await page.getByTestId('eval-mistakes').getByRole('img').count())) fail('text mistakes rendered as images');
      }
      await screenshot(page, 'evaluation');
      return idFromUrl(page);
    });
    if (deploy) await deployAndTry(page, modelVersionId, suffix);
    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: dataset #${datasetId}, job #${jobId}, model version #${modelVersionId}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

/** Deploy -> Hosted API, a key, Try it with a text or a row, the answer shown, the call counted. */
async function deployAndTry(page, modelVersionId, suffix) {
  const deploymentId = await step('deploy it as a hosted API', async () => {
    await page.getByTestId('deploy-hosted').click();
    await page.getByTestId('deployment-name-input').fill(`${task}-${suffix}`);
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
  const tried = await step(`try it with ${task === 'text_classification' ? 'a text' : 'a row'}`, async () => {
    await page.getByTestId('deployment-tab-try').click();
    await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
    await page.getByTestId('try-no-key').waitFor(); // signed in: the panel needs no key (the key is for code)
    const box = page.getByTestId('try-text');
    if (task === 'text_classification') await box.fill(tryText);
    else {
      await page.getByTestId('try-example-row').click();
      const example = JSON.parse(await box.inputValue());
      if (Object.keys(example).length < 2) fail(`the example row has ${Object.keys(example).length} columns`);
      if (tryRow) await box.fill(tryRow);
    }
    const input = task === 'text_classification' ? { text: tryText } : JSON.parse(await box.inputValue());
    const called = posted(page, `/api/v1/deployments/${deploymentId}/try/`);
    await page.getByTestId('try-submit').click();
    const response = await called;
    if (response.status() !== 200) fail(`try answered ${response.status()}: ${await response.text()}`);
    if ((await response.request().allHeaders()).authorization) fail('the try-it call sent a key: signed in, it needs none');
    const sent = response.request().postDataJSON();
    if (JSON.stringify(sent.instances) !== JSON.stringify([input])) fail(`the panel sent ${JSON.stringify(sent.instances)}, not ${JSON.stringify([input])}`);
    const body = await response.json();
    await page.getByTestId('try-result').waitFor();
    const label = await page.getByTestId('try-label-0').getAttribute('data-label');
    if (label !== body.predictions[0].top_k[0].label) fail(`the panel shows "${label}", the API answered "${body.predictions[0].top_k[0].label}"`);
    await screenshot(page, 'try-it');
    log(`try it: "${label}" (${(body.predictions[0].top_k[0].score * 100).toFixed(1)}%)`);
    return { input, label };
  });
  await step('the call is counted in the usage panel', async () => {
    await page.getByTestId('deployment-tab-usage').click();
    const totals = page.getByTestId('usage-totals');
    await totals.waitFor();
    await page
      .waitForFunction(() => Number(document.querySelector('[data-testid="usage-totals"]')?.getAttribute('data-calls')) >= 1, null, { timeout: 45_000 })
      .catch(async () => fail(`usage still counts ${await totals.getAttribute('data-calls')} calls`));
    const calls = Number(await totals.getAttribute('data-calls'));
    const errors = Number(await totals.getAttribute('data-errors'));
    if (calls !== 1 || errors !== 0) fail(`usage counts ${calls} calls and ${errors} errors; one successful call was made`);
    await screenshot(page, 'usage');
  });
  await writeFile(path.join(artifacts, 'deploy.json'), JSON.stringify({ deployment: deploymentId, key: secret, ...tried }, null, 2));
}

run(main);
