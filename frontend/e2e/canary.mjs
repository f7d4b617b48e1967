#!/usr/bin/env node
// A canary and a shadow through the deployment's Traffic tab in headless Chromium: set a 90/10 split
// (V2 as the canary), send predictions with the deployment's key (straight to the API, as a client
// would) until both versions have answered, see the calls split by version on the Usage tab, turn on
// V3 as the shadow and see its agreement, promote the canary (confirmed), and read the history on the
// Overview with the details of each change.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT (id), E2E_KEY (the deployment's key),
//      E2E_PRIMARY / E2E_CANARY / E2E_SHADOW (model version ids), E2E_IMAGE (a PNG), E2E_ARTIFACTS,
//      CHROMIUM_PATH.
// Prints one JSON line "[e2e] RESULT {...}"; exit 0 when every check passed.
import { mkdir, readFile } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const deploymentId = process.env.E2E_DEPLOYMENT;
const key = process.env.E2E_KEY;
const primary = process.env.E2E_PRIMARY;
const canary = process.env.E2E_CANARY;
const shadow = process.env.E2E_SHADOW;
const imagePath = process.env.E2E_IMAGE;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/canary';
const screenshot = screenshots(artifacts);

/** One prediction with the key: the id of the model version that answered (X-Sampan-Model-Version). */
async function predict(image) {
  const form = new FormData();
  form.append('file', new Blob([image], { type: 'image/png' }), 'digit.png');
  const response = await fetch(`${baseUrl}/api/v1/deployments/${deploymentId}/predict/`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${key}` },
  });
  if (response.status !== 200) fail(`predict answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  await response.arrayBuffer();
  const version = response.headers.get('x-sampan-model-version');
  if (!version) fail('predict answered without X-Sampan-Model-Version');
  return version;
}

async function openTab(page, tab) {
  await page.getByTestId(`deployment-tab-${tab}`).click();
  await page.locator(`[data-testid="deployment-tab-${tab}"][aria-selected="true"]`).waitFor();
}

/** Picks `name` in the Mantine select with data-testid `testId` (only the open list's options are visible). */
async function pick(page, testId, name) {
  await page.waitForFunction((id) => !document.querySelector(`[data-testid="${id}"]`)?.hasAttribute('disabled'), testId);
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name, exact: true }).click();
}

async function main() {
  if (!username || !password || !deploymentId || !key || !primary || !canary || !shadow || !imagePath) {
    fail('SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT, E2E_KEY, E2E_PRIMARY, E2E_CANARY, E2E_SHADOW and E2E_IMAGE must be set');
  }
  await mkdir(artifacts, { recursive: true });
  const image = await readFile(imagePath);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, locale: 'en' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  const result = { answeredBy: {}, usage: {}, shadow: {}, history: [] };
  try {
    await step('sign in and open the Traffic tab', async () => {
      await logIn(page, baseUrl, username, password);
      const response = await page.goto(`${baseUrl}/deployments/${deploymentId}/traffic`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const share = page.getByTestId(`traffic-share-${primary}`);
      await share.waitFor();
      if ((await share.getAttribute('data-weight')) !== '100') fail(`the primary answers ${await share.getAttribute('data-weight')}%, not 100%`);
      await page.getByTestId('traffic-shadow-empty').waitFor();
    });

    await step('add V2 as a 10 % canary and apply the split', async () => {
      await pick(page, 'traffic-add-select', 'V2');
      await page.getByTestId('traffic-add').click();
      await page.getByTestId(`traffic-weight-${canary}`).fill('10');
      await page.getByTestId('traffic-draft-summary').filter({ hasText: '90%' }).waitFor();
      const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/deployments/${deploymentId}/traffic/`));
      await page.getByTestId('traffic-save').click();
      const response = await saved;
      if (response.status() !== 200) fail(`POST traffic answered ${response.status()}: ${await response.text()}`);
      await page.locator(`[data-testid="traffic-share-${canary}"][data-weight="10"]`).waitFor();
      await page.locator(`[data-testid="traffic-share-${primary}"][data-weight="90"]`).waitFor();
      await screenshot(page, 'canary-split');
    });

    await step('send predictions with the key until both versions have answered', async () => {
      for (let sent = 0; sent < 400; sent += 1) {
        const version = await predict(image);
        result.answeredBy[version] = (result.answeredBy[version] ?? 0) + 1;
        if (sent >= 39 && result.answeredBy[primary] && result.answeredBy[canary]) break;
      }
      const other = Object.keys(result.answeredBy).filter((id) => id !== primary && id !== canary);
      if (other.length) fail(`answered by versions outside the split: ${other.join(', ')}`);
      if (!result.answeredBy[canary] || !result.answeredBy[primary]) fail(`one version never answered: ${JSON.stringify(result.answeredBy)}`);
      log(`answered by ${JSON.stringify(result.answeredBy)}`);
    });

    await step('the Usage tab splits the calls by version', async () => {
      await openTab(page, 'usage');
      for (const id of [primary, canary]) {
        const row = page.locator(`[data-testid="usage-version-${id}"][data-calls="${result.answeredBy[id]}"]`);
        try {
          await row.waitFor({ timeout: 60_000 });
        } catch (error) {
          const usage = await page.request.get(`${baseUrl}/api/v1/deployments/${deploymentId}/usage/?window=1h`);
          log(`usage answered ${usage.status()}: ${(await usage.text()).slice(0, 1500)}`);
          await screenshot(page, 'usage-by-version-missing', { fullPage: true });
          throw error;
        }
        result.usage[id] = { calls: Number(await row.getAttribute('data-calls')), role: await row.getAttribute('data-role') };
      }
      // one line per version over the whole window, and a score histogram each
      const lines = page.getByTestId('usage-version-calls-chart').locator('path.recharts-line-curve, .recharts-line path.recharts-curve');
      await lines.nth(1).waitFor();
      await page.waitForTimeout(800); // recharts animates the series in
      result.usage.lines = await lines.count();
      for (const id of [primary, canary]) await page.getByTestId(`usage-version-scores-${id}`).locator('path.recharts-rectangle').first().waitFor();
      await screenshot(page, 'usage-by-version', { fullPage: true });
    });

    await step('turn on V3 as the shadow and see its agreement', async () => {
      await openTab(page, 'traffic');
      await pick(page, 'traffic-shadow-select', 'V3');
      const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/deployments/${deploymentId}/shadow/`));
      await page.getByTestId('traffic-shadow-save').click();
      const response = await saved;
      if (response.status() !== 200) fail(`POST shadow answered ${response.status()}: ${await response.text()}`);
      await page.getByTestId('traffic-shadow-line').waitFor();
      await page.getByTestId('shadow-agreement').waitFor();
      for (let index = 0; index < 20; index += 1) await predict(image);
      const totals = page.locator('[data-testid="shadow-totals"]:not([data-compared="0"])');
      await totals.waitFor({ timeout: 60_000 });
      result.shadow = {
        compared: Number(await totals.getAttribute('data-compared')),
        agreement: (await page.getByTestId('shadow-agreement-value').innerText()).trim(),
      };
      // the minutes compared so far: dots (a line once two minutes have figures)
      await page.getByTestId('shadow-agreement-chart').locator('.recharts-line-dots circle, circle.recharts-dot').first().waitFor();
      await screenshot(page, 'shadow-agreement', { fullPage: true });
      log(`shadow ${JSON.stringify(result.shadow)}`);
    });

    await step('promote the canary after confirming', async () => {
      await page.getByTestId(`traffic-promote-${canary}`).click();
      await page.getByTestId('traffic-confirm-text').filter({ hasText: 'Make V2 the primary version' }).waitFor();
      const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/deployments/${deploymentId}/promote/`));
      await page.getByTestId('traffic-confirm').click();
      const response = await saved;
      if (response.status() !== 200) fail(`POST promote answered ${response.status()}: ${await response.text()}`);
      await page.locator(`[data-testid="traffic-share-${canary}"][data-weight="100"][data-role="primary"]`).waitFor();
      if (await page.getByTestId(`traffic-share-${primary}`).count()) fail('the old primary still has a share after the promotion');
      await screenshot(page, 'promoted');
    });

    await step('the Overview history shows each change with its details', async () => {
      await openTab(page, 'overview');
      await page.getByTestId('deployment-history-entry').first().waitFor();
      const entries = page.getByTestId('deployment-history-entry');
      for (let index = 0; index < (await entries.count()); index += 1) {
        const entry = entries.nth(index);
        result.history.push({ action: await entry.getAttribute('data-action'), text: (await entry.innerText()).replace(/\s+/g, ' ').trim() });
      }
      await screenshot(page, 'history', { fullPage: true });
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
