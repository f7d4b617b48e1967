#!/usr/bin/env node
// Custom code in the browser: sign in, open a project's Code tab, upload a training script (the
// digits CNN example), read it, run it with epochs=2 on the project's digits dataset version, watch
// its log lines arrive and its metric curves draw on the job's page, wait for the model version it
// made (with its lineage on the model version's page), deploy it from the job's page and classify a
// digit image with the deployment's try-it panel. No page error, console error or failed call.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_PROJECT (id), E2E_DATASET (its name),
//      E2E_SCRIPT (path of train.py), E2E_IMAGE (a digit image), E2E_ARTIFACTS, CHROMIUM_PATH,
//      E2E_RUN_TIMEOUT_S (default 900).
// Writes custom_code.json (job, archive, model version, deployment, answer) and screenshots into
// E2E_ARTIFACTS; exit 0 when every check passed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, isApi, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const projectId = Number(process.env.E2E_PROJECT);
const datasetName = process.env.E2E_DATASET || 'Digits';
const scriptPath = process.env.E2E_SCRIPT;
const imagePath = process.env.E2E_IMAGE;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/custom-code';
const runTimeoutMs = Number(process.env.E2E_RUN_TIMEOUT_S || 900) * 1000;
const screenshot = screenshots(artifacts);

/** Picks `optionName` in a Mantine Select found by test id. */
async function choose(page, testId, optionName) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: optionName }).first().click();
}

async function main() {
  if (!projectId || !scriptPath || !imagePath) fail('E2E_PROJECT, E2E_SCRIPT and E2E_IMAGE must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  page.on('console', (message) => {
    // a failed call is checked where it matters (and logged by logFailedCalls); the sign-in page's 401 is expected
    if (message.type() === 'error' && !/Content Security Policy|Failed to load resource/i.test(message.text())) errors.push(`console error: ${message.text()}`);
  });
  const summary = {};
  try {
    await step('log in', () => logIn(page, baseUrl, process.env.SAMPAN_USER, process.env.SAMPAN_PASSWORD));

    const archive = await step(`upload ${path.basename(scriptPath)} on project #${projectId}'s Code tab`, async () => {
      await page.goto(`${baseUrl}/projects/${projectId}/code`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('code-panel').waitFor();
      await page.getByTestId('code-archives-empty').waitFor();
      const uploaded = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/code-archives/'));
      uploaded.catch(() => {});
      await page.getByTestId('code-file-input').setInputFiles(scriptPath);
      const response = await uploaded;
      if (response.status() !== 201) fail(`POST /api/v1/code-archives/ answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      if (body.code_kind !== 'script' || body.entry_point !== 'train.py') fail(`the archive is ${body.code_kind} with entry point ${body.entry_point}`);
      await page.getByTestId(`code-archive-${body.id}`).waitFor();
      const shownSha = (await page.getByTestId(`code-archive-${body.id}`).locator('code').first().innerText()).trim();
      if (!body.sha256.startsWith(shownSha) || shownSha.length < 8) fail(`the table shows sha256 "${shownSha}", the archive's is ${body.sha256}`);
      log(`archive #${body.id} ${body.name} (${body.size_bytes} bytes, sha256 ${body.sha256.slice(0, 12)})`);
      summary.archive = body.id;
      return body;
    });

    await step("read the script's text", async () => {
      await page.getByTestId('code-archive-detail').waitFor();
      const text = page.getByTestId('code-file-text');
      await text.waitFor();
      if ((await text.getAttribute('data-path')) !== 'train.py') fail(`the view shows ${await text.getAttribute('data-path')}, not train.py`);
      if (!(await text.innerText()).includes('run.log_metrics')) fail('the file view does not show the script');
      if ((await page.getByTestId('run-entry-point').inputValue()) !== 'train.py') fail('the run form does not start from the entry point');
      await screenshot(page, 'code-tab', { fullPage: true });
    });

    await step('run it with epochs=2 on the digits dataset version', async () => {
      await page.getByTestId('run-hyper-name-0').fill('epochs');
      await page.getByTestId('run-hyper-value-0').fill('2');
      await choose(page, 'run-dataset', datasetName);
      await page.waitForFunction(() => (document.querySelector('[data-testid="run-dataset-version"]')?.value ?? '') !== '');
      await page.getByTestId('run-wall-time').fill('900');
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/custom-jobs/'));
      created.catch(() => {});
      await page.getByTestId('run-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/custom-jobs/ answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      if (sent.hyperparameters?.epochs !== 2 || sent.code_archive !== archive.id || !sent.dataset_version) fail(`the run sent ${JSON.stringify(sent)}`);
      const job = await response.json();
      if (job.kind !== 'training.custom') fail(`the job is ${job.kind}`);
      await page.waitForURL(new RegExp(`/jobs/${job.id}/?$`));
      summary.job = job.id;
      summary.dataset_version = sent.dataset_version;
      log(`job #${job.id} on dataset version #${sent.dataset_version}`);
      return job.id;
    });

    await step('watch the log lines arrive', async () => {
      await page.getByTestId('custom-job-monitor').waitFor();
      await page.getByTestId('job-logs').waitFor();
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="job-logs"]')?.getAttribute('data-lines')) >= 3, null, {
        timeout: runTimeoutMs,
        polling: 500,
      });
      const first = await page.getByTestId('job-logs-count').innerText();
      await screenshot(page, 'job-logs');
      log(`logs: ${first}`);
    });

    await step('watch the metric curves draw (loss, val_accuracy by step)', async () => {
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="custom-curve-loss"]')?.getAttribute('data-points')) >= 1, null, {
        timeout: runTimeoutMs,
        polling: 500,
      });
      await page.getByTestId('custom-curve-loss').locator('.recharts-surface').first().waitFor();
      await page.getByTestId('custom-curve-val_accuracy').waitFor();
      await screenshot(page, 'job-curves', { fullPage: true });
    });

    const modelVersion = await step('wait for the run to finish with a model version', async () => {
      await page.getByTestId('custom-job-model').or(page.getByTestId('job-error')).first().waitFor({ timeout: runTimeoutMs });
      if (await page.getByTestId('job-error').count()) fail(`the job failed: ${(await page.getByTestId('job-error').innerText()).slice(0, 800)}`);
      const points = Number(await page.getByTestId('custom-curve-loss').getAttribute('data-points'));
      if (points !== 2) fail(`the loss curve has ${points} points after 2 epochs`);
      const exit = await page.getByTestId('custom-job-exit').innerText();
      const link = await page.getByTestId('custom-job-model-link').getAttribute('href');
      const id = Number(link?.split('/').pop());
      if (!id) fail(`the model link is ${link}`);
      await page.locator('[data-testid="job-logs"][data-finished="true"]').waitFor(); // every line read
      const lines = Number(await page.getByTestId('job-logs').getAttribute('data-lines'));
      if (!(await page.getByTestId('job-logs-box').innerText()).includes('training images')) fail("the logs do not show the script's output");
      await screenshot(page, 'job-finished', { fullPage: true });
      log(`${exit}; ${lines} log lines; model version #${id}`);
      summary.model_version = id;
      summary.log_lines = lines;
      return id;
    });

    const deploymentId = await step(`deploy model version #${modelVersion} from the job's page`, async () => {
      await page.getByTestId('custom-job-model').getByTestId('deploy-hosted').click();
      await page.getByTestId('deployment-name-input').fill(`custom digits ${summary.job}`);
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/deployments/'));
      created.catch(() => {});
      await page.getByTestId('deployment-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/deployments/ answered ${response.status()}: ${await response.text()}`);
      const deployment = await response.json();
      if (deployment.model_version !== modelVersion) fail(`the deployment serves #${deployment.model_version}, not #${modelVersion}`);
      await page.waitForURL(new RegExp(`/deployments/${deployment.id}/keys/?$`));
      summary.deployment = deployment.id;
      return deployment.id;
    });

    await step('classify a digit image with the try-it panel', async () => {
      await page.getByTestId('deployment-tab-try').click();
      await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
      await page.locator('input[type="file"]').setInputFiles(imagePath);
      await page.getByTestId('try-preview').waitFor();
      const called = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/try/`));
      called.catch(() => {});
      await page.getByTestId('try-submit').click();
      const response = await called;
      if (response.status() !== 200) fail(`try answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      await page.getByTestId('try-result').waitFor();
      const top = await page.getByTestId('try-label-0').getAttribute('data-label');
      if (top !== body.predictions[0].top_k[0].label) fail(`the panel shows "${top}", the API answered "${body.predictions[0].top_k[0].label}"`);
      if (body.model_version.id !== modelVersion) fail(`answered by model version #${body.model_version.id}`);
      await screenshot(page, 'try-it');
      summary.answer = { label: top, score: body.predictions[0].top_k[0].score };
      log(`answer "${top}" (${(body.predictions[0].top_k[0].score * 100).toFixed(1)}%)`);
    });

    await step("the model version's page shows its lineage", async () => {
      await page.goto(`${baseUrl}/model-versions/${modelVersion}`, { waitUntil: 'domcontentloaded' });
      const lineage = page.getByTestId('custom-lineage');
      await lineage.waitFor();
      if ((await lineage.getAttribute('data-sha256')) !== archive.sha256) fail(`the lineage names sha256 ${await lineage.getAttribute('data-sha256')}`);
      if (!(await page.getByTestId('custom-lineage-hyperparameters').innerText()).includes('epochs=2')) fail('the lineage does not show epochs=2');
      if ((await page.getByTestId('custom-lineage-job').getAttribute('href')) !== `/jobs/${summary.job}`) fail('the lineage does not link its job');
      await page.getByTestId('custom-lineage-environment-toggle').click();
      await page.getByTestId('custom-lineage-environment-packages').getByText('torch', { exact: true }).waitFor();
      await screenshot(page, 'custom-lineage', { fullPage: true });
    });

    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    await writeFile(path.join(artifacts, 'custom_code.json'), JSON.stringify(summary, null, 2));
    console.log(`[e2e] RESULT ${JSON.stringify(summary)}`);
    return 0;
  } catch (error) {
    await screenshot(page, 'failure', { fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

run(main);
