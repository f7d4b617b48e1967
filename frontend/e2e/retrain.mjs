#!/usr/bin/env node
// Retrain from a version in headless Chromium: on a deployment's Overview, "Retrain from this version"
// opens the dialog (dataset, version, settings) and starts a training job warm-started from the served
// version (the job's page opens); a warm-started version's page says where it started from, links the
// comparison with the serving version and starts a 10 % canary on the deployment serving its parent.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT (id), E2E_PARENT / E2E_CHILD (model
//      version ids; the child warm-started from the parent, which the deployment serves),
//      E2E_DATASET / E2E_DATASET_VERSION (names to pick), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints one JSON line "[e2e] RESULT {...}"; exit 0 when every check passed.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const deploymentId = process.env.E2E_DEPLOYMENT;
const parent = process.env.E2E_PARENT;
const child = process.env.E2E_CHILD;
const datasetName = process.env.E2E_DATASET;
const versionName = process.env.E2E_DATASET_VERSION;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/retrain';
const screenshot = screenshots(artifacts);

/** Picks `name` in the Mantine select with data-testid `testId` (only the open list's options are visible). */
async function pick(page, testId, name) {
  await page.waitForFunction((id) => !document.querySelector(`[data-testid="${id}"]`)?.hasAttribute('disabled'), testId);
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name, exact: true }).click();
}

async function main() {
  if (!username || !password || !deploymentId || !parent || !child || !datasetName || !versionName) {
    fail('SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT, E2E_PARENT, E2E_CHILD, E2E_DATASET and E2E_DATASET_VERSION must be set');
  }
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, locale: 'en' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  const result = {};
  try {
    await step('sign in and open the deployment overview', async () => {
      await logIn(page, baseUrl, username, password);
      const response = await page.goto(`${baseUrl}/deployments/${deploymentId}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('retrain').waitFor();
    });

    await step('retrain from the served version: pick the dataset version, start, land on the job', async () => {
      await page.getByTestId('retrain').click();
      await pick(page, 'retrain-dataset', datasetName);
      await pick(page, 'retrain-version', versionName);
      await screenshot(page, 'retrain-dialog');
      const answer = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/api/v1/deployments/${deploymentId}/retrain/`,
      );
      await page.getByTestId('retrain-submit').click();
      const response = await answer;
      if (response.status() !== 201) fail(`retrain answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      const job = await response.json();
      result.job = job.id;
      result.warmStartFrom = job.params.warm_start_from;
      await page.waitForURL((url) => url.pathname === `/jobs/${job.id}`);
      await screenshot(page, 'retrain-job');
    });

    await step("the warm-started version's page names its parent and offers the comparison", async () => {
      const response = await page.goto(`${baseUrl}/model-versions/${child}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const parentLink = page.getByTestId('warm-start-parent');
      await parentLink.waitFor();
      result.parentText = (await parentLink.innerText()).trim();
      result.parentHref = await parentLink.getAttribute('href');
      const compare = page.getByTestId('warm-start-compare');
      await compare.waitFor();
      result.compareHref = await compare.getAttribute('href');
      await screenshot(page, 'warm-started-version', { fullPage: true });
    });

    await step('start a 10 % canary on the deployment serving the parent', async () => {
      await page.getByTestId('warm-start-canary').click();
      const share = page.getByTestId('warm-start-canary-share');
      await share.waitFor();
      result.canaryText = (await share.innerText()).trim();
      await screenshot(page, 'canary-started');
    });

    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } catch (error) {
    await screenshot(page, 'failed', { fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

run(main);
