#!/usr/bin/env node
// Browser check of a large dataset's version and export made by background jobs, through the real UI of
// a live Sampan server whose sync thresholds are low: the version form answers with a running
// datasets.version job whose progress bar moves and ends at 100 %, then the new version is listed;
// "Export in the background" runs a datasets.export job and offers its zip, which downloads.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_DATASET (its id), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints "[e2e] RESULT {...}" and exits 0, or a "FAILED: ..." line and exits 1.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const datasetId = Number(process.env.E2E_DATASET);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });

/** Polls the job panel until it has finished, keeping every progress value shown on the way. */
async function watchJob(page) {
  const panel = page.getByTestId('dataset-job');
  await panel.waitFor();
  const seen = [];
  for (let i = 0; i < 240; i += 1) {
    const value = Number(await page.getByTestId('dataset-job-progress').getAttribute('data-value'));
    if (seen[seen.length - 1] !== value) seen.push(value);
    const status = await panel.getAttribute('data-status');
    if (status === 'succeeded' || status === 'failed' || status === 'cancelled') return { status, seen };
    await page.waitForTimeout(250);
  }
  fail(`the job did not finish; progress seen: ${seen.join(', ')}`);
}

async function main() {
  if (!username || !password || !datasetId) fail('SAMPAN_USER, SAMPAN_PASSWORD and E2E_DATASET must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  const result = {};
  try {
    await step('log in', () => logIn(page, baseUrl, username, password));
    await step('make a version: 202, a job with a live progress bar, then the version', async () => {
      await page.goto(`${baseUrl}/datasets/${datasetId}/versions`);
      await page.getByTestId('versions-empty').waitFor();
      const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/v1/datasets/${datasetId}/versions/`);
      await page.getByTestId('version-create-submit').click();
      result.versionStatus = (await answered).status();
      const job = await watchJob(page);
      result.version = job;
      result.versionCounts = (await page.getByTestId('dataset-job-counts').innerText()).trim();
      await screenshot(page, 'version-job-done');
      const row = page.locator('[data-testid^="version-name-"]').first();
      await row.waitFor();
      result.versionName = (await row.innerText()).trim();
      log(`version job ${job.status}, progress ${job.seen.join(' -> ')}; listed ${result.versionName}`);
    });
    await step('export in the background and download the zip', async () => {
      await page.getByTestId('dataset-export-job').click();
      const job = await watchJob(page);
      result.export = job;
      const link = page.getByTestId('dataset-export-job-download');
      await link.waitFor();
      result.exportHref = await link.getAttribute('href');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const target = path.join(artifacts, 'export.zip');
      await download.saveAs(target);
      result.exportFile = target;
      await screenshot(page, 'export-job-done');
    });
    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
