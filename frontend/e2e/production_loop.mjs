#!/usr/bin/env node
// The production loop in headless Chromium: on a deployed digits model, turn on capture of
// low-confidence requests on the Capture tab; send predictions with the deployment's key (straight to
// the API, as a client would); see them on the Capture tab; send them to the digits dataset; in the
// labeler, see each one's suggestion "From production", accept one and correct another (the rest
// accepted too); make a dataset version; retrain from the serving version on it and wait for the job;
// compare the new version with the serving one; start a 10 % canary of it.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT (id), E2E_KEY (the deployment's key),
//      E2E_SERVING (the served model version's id), E2E_DATASET (the digits dataset's id),
//      E2E_IMAGES (a folder of PNGs to send), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints one JSON line "[e2e] RESULT {...}"; exit 0 when every check passed.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, isApi, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const deploymentId = process.env.E2E_DEPLOYMENT;
const key = process.env.E2E_KEY;
const serving = process.env.E2E_SERVING;
const datasetId = process.env.E2E_DATASET;
const imagesDir = process.env.E2E_IMAGES;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/production-loop';
const screenshot = screenshots(artifacts);
const JOB_TIMEOUT_MS = 480_000;

/** One prediction with the key; the served answer's top label. */
async function predict(image, name) {
  const form = new FormData();
  form.append('file', new Blob([image], { type: 'image/png' }), name);
  const response = await fetch(`${baseUrl}/api/v1/deployments/${deploymentId}/predict/`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${key}` } });
  const text = await response.text();
  if (response.status !== 200) fail(`predict answered ${response.status}: ${text.slice(0, 300)}`);
  const best = JSON.parse(text).predictions?.[0]?.top_k?.[0] ?? {};
  return { label: best.label ?? null, score: best.score ?? null };
}

/** GET an API path with the page's session (same origin), as JSON. */
async function apiGet(page, pathname) {
  return page.evaluate(async (url) => {
    const response = await fetch(url, { headers: { Accept: 'application/json' } });
    return { status: response.status, body: await response.json().catch(() => null) };
  }, pathname);
}

/** Picks the option matching `name` in the Mantine select with data-testid `testId`. */
async function pick(page, testId, name) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name }).first().click();
}

/** Waits for the sample tile's label to change from `before` (a write answered and the grid redrew). */
async function waitLabeled(page, sampleId) {
  await page.waitForFunction((testId) => (document.querySelector(`[data-testid="${testId}"]`)?.getAttribute('data-label') ?? '') !== '', `sample-tile-${sampleId}`);
}

async function main() {
  if (!username || !password || !deploymentId || !key || !serving || !datasetId || !imagesDir) {
    fail('SAMPAN_USER, SAMPAN_PASSWORD, E2E_DEPLOYMENT, E2E_KEY, E2E_SERVING, E2E_DATASET and E2E_IMAGES must be set');
  }
  await mkdir(artifacts, { recursive: true });
  const names = (await readdir(imagesDir)).filter((name) => name.endsWith('.png')).sort();
  if (names.length < 3) fail(`E2E_IMAGES holds ${names.length} PNGs; at least 3 are needed`);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, locale: 'en' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  logFailedCalls(page);
  const result = { steps: [], served: [], captured: 0, sent: null, sampleIds: [], accepted: [], corrected: null, datasetVersion: null, retrain: null, canary: null };
  const done = (name) => result.steps.push(name);
  try {
    await step('sign in and open the Capture tab: off by default, saying what it stores', async () => {
      await logIn(page, baseUrl, username, password);
      const response = await page.goto(`${baseUrl}/deployments/${deploymentId}/capture`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const policy = page.getByTestId('capture-policy');
      await policy.waitFor();
      if ((await policy.getAttribute('data-enabled')) !== 'false') fail('capture is on before anyone turned it on');
      const statement = await page.getByTestId('capture-statement').innerText();
      for (const words of ['the input', 'the answer it served', 'API key', 'deleted after', 'off (the default)']) {
        if (!statement.includes(words)) fail(`the capture statement does not say "${words}": ${statement}`);
      }
      await page.getByTestId('captures-empty').waitFor();
      done('capture-tab');
    });

    await step('turn on capture of low-confidence requests', async () => {
      await page.getByTestId('capture-enabled').check({ force: true });
      await page.getByTestId('capture-sample-rate').fill('100');
      await page.getByTestId('capture-low-confidence-on').check({ force: true });
      await page.getByTestId('capture-low-confidence').fill('1');
      const saved = page.waitForResponse((r) => isApi(r, 'PUT', `/api/v1/deployments/${deploymentId}/capture/`));
      await page.getByTestId('capture-save').click();
      const response = await saved;
      if (response.status() !== 200) fail(`PUT capture answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      if (!body.enabled || body.low_confidence_below !== 1 || body.sample_rate !== 1) fail(`the saved policy is ${JSON.stringify(body)}`);
      await page.locator('[data-testid="capture-policy"][data-enabled="true"]').waitFor();
      await screenshot(page, 'capture-on', { fullPage: true });
      done('capture-on');
    });

    await step(`send ${names.length} predictions with the key`, async () => {
      for (const name of names) result.served.push({ name, ...(await predict(await readFile(path.join(imagesDir, name)), name)) });
      log(`served ${JSON.stringify(result.served)}`);
      done('predictions');
    });

    await step('see them on the Capture tab', async () => {
      const count = page.locator(`[data-testid="captures-count"][data-count="${names.length}"]`);
      await count.waitFor({ timeout: 60_000 }).catch(async () => fail(`the Capture tab lists ${await page.getByTestId('captures-count').getAttribute('data-count')} captures, ${names.length} were sent`));
      result.captured = names.length;
      await page.locator('[data-testid^="capture-image-"]').first().waitFor();
      const reasons = await page.locator('[data-testid^="capture-row-"]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-reason')));
      if (reasons.some((reason) => reason !== 'low_confidence')) fail(`captured for ${reasons.join(', ')}`);
      const storage = page.locator('[data-testid="capture-storage"]:not([data-count="0"])');
      await storage.waitFor({ timeout: 30_000 });
      await screenshot(page, 'captured', { fullPage: true });
      done('captured');
    });

    await step('send them to the digits dataset', async () => {
      await page.getByTestId('captures-select-page').check({ force: true });
      await page.getByTestId('captures-send').click();
      await pick(page, 'capture-send-dataset', /^Digits/);
      const sent = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/deployments/${deploymentId}/captures/send/`));
      await page.getByTestId('capture-send-confirm').click();
      const response = await sent;
      if (response.status() !== 200) fail(`POST send answered ${response.status()}: ${await response.text()}`);
      result.sent = await response.json();
      const shown = page.getByTestId('capture-send-result');
      await shown.waitFor();
      if (Number(await shown.getAttribute('data-samples')) !== names.length) fail(`the dialog says ${await shown.getAttribute('data-samples')} samples created: ${JSON.stringify(result.sent)}`);
      await screenshot(page, 'sent');
      const listed = await apiGet(page, `/api/v1/deployments/${deploymentId}/captures/?sent=true&page_size=100`);
      result.sampleIds = listed.body.results.map((row) => row.sent_to_sample).sort((a, b) => a - b);
      await page.getByTestId('capture-send-open').click();
      await page.waitForURL(new RegExp(`/datasets/${datasetId}/label`));
      done('sent');
    });

    await step('label them in the labeler: accept one suggestion from production, correct another', async () => {
      await page.goto(`${baseUrl}/datasets/${datasetId}/label?samples=${result.sampleIds.join(',')}`, { waitUntil: 'load' });
      const [first, second, ...rest] = result.sampleIds;
      const badge = page.getByTestId(`sample-suggestion-${first}-production`);
      await badge.waitFor();
      const said = await badge.getAttribute('aria-label');
      if (!said || !said.startsWith('From production')) fail(`the production badge says "${said}"`);
      await screenshot(page, 'labeler-production');
      const labels = (await apiGet(page, `/api/v1/datasets/${datasetId}/labels/?page_size=100`)).body.results;
      // accept the first one's suggestion with the accept key
      await page.getByTestId(`sample-tile-${first}`).click();
      const suggested = await page.getByTestId(`sample-suggestion-${first}`).getAttribute('data-suggested-label');
      const accepted = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/suggestions/accept/`));
      await page.keyboard.press('a');
      const acceptResponse = await accepted;
      if (acceptResponse.status() !== 200) fail(`accept answered ${acceptResponse.status()}: ${await acceptResponse.text()}`);
      await waitLabeled(page, first);
      result.accepted.push({ sample: first, label: Number(suggested) });
      // correct the second: another class than the one suggested, by its key
      await page.getByTestId(`sample-tile-${second}`).click();
      const secondSuggested = Number(await page.getByTestId(`sample-suggestion-${second}`).getAttribute('data-suggested-label'));
      const other = labels.find((label) => label.id !== secondSuggested && label.key);
      if (!other) fail('no other class with a key to correct to');
      const patched = page.waitForResponse((r) => isApi(r, 'PATCH', `/api/v1/datasets/${datasetId}/samples/${second}/`));
      await page.keyboard.press(other.key);
      const patchResponse = await patched;
      if (patchResponse.status() !== 200) fail(`the correction answered ${patchResponse.status()}: ${await patchResponse.text()}`);
      await waitLabeled(page, second);
      result.corrected = { sample: second, suggested: secondSuggested, label: other.id };
      // the rest: accepted as served
      for (const id of rest) {
        await page.getByTestId(`sample-tile-${id}`).click();
        const label = Number(await page.getByTestId(`sample-suggestion-${id}`).getAttribute('data-suggested-label'));
        const answer = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/suggestions/accept/`));
        await page.keyboard.press('a');
        if ((await answer).status() !== 200) fail(`accepting sample ${id}'s suggestion failed`);
        await waitLabeled(page, id);
        result.accepted.push({ sample: id, label });
      }
      await screenshot(page, 'labeled');
      done('labeled');
    });

    await step('make a dataset version', async () => {
      await page.goto(`${baseUrl}/datasets/${datasetId}/versions`, { waitUntil: 'load' });
      await page.getByTestId('version-seed').fill('7');
      const created = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/versions/`));
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
      const version = await response.json();
      await page.getByTestId(`version-name-${version.id}`).waitFor();
      result.datasetVersion = { id: version.id, name: version.name, samples: version.sample_count };
      done('dataset-version');
    });

    const jobId = await step('"Retrain from this version" on the overview, on the new dataset version', async () => {
      await page.goto(`${baseUrl}/deployments/${deploymentId}/overview`, { waitUntil: 'load' });
      await page.getByTestId('retrain').click();
      await pick(page, 'retrain-dataset', /^Digits$/);
      await pick(page, 'retrain-version', result.datasetVersion.name);
      const started = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/deployments/${deploymentId}/retrain/`));
      await page.getByTestId('retrain-submit').click();
      const response = await started;
      if (response.status() !== 201) fail(`POST retrain answered ${response.status()}: ${await response.text()}`);
      const job = await response.json();
      if (String(job.params?.warm_start_from) !== String(serving)) fail(`the job starts from ${job.params?.warm_start_from}, not ${serving}`);
      await page.waitForURL(new RegExp(`/jobs/${job.id}$`));
      result.retrain = { job: job.id };
      done('retrain');
      return job.id;
    });

    const newVersion = await step('wait for the training job', async () => {
      const started = Date.now();
      for (;;) {
        const job = (await apiGet(page, `/api/v1/training-jobs/${jobId}/`)).body;
        if (job.status === 'succeeded') {
          const version = job.model_version?.id;
          if (!version) fail(`the finished job names no model version: ${JSON.stringify(job).slice(0, 400)}`);
          result.retrain.modelVersion = version;
          return version;
        }
        if (['failed', 'cancelled'].includes(job.status)) fail(`the training job ${job.status}: ${job.error}`);
        if (Date.now() - started > JOB_TIMEOUT_MS) fail(`the training job is still ${job.status}`);
        await page.waitForTimeout(2000);
      }
    });
    done('trained');

    await step('the new version says where it started; compare it with the serving version', async () => {
      await page.goto(`${baseUrl}/model-versions/${newVersion}`, { waitUntil: 'load' });
      const parent = page.getByTestId('warm-start-parent');
      await parent.waitFor();
      const version = (await apiGet(page, `/api/v1/model-versions/${newVersion}/`)).body;
      if (String(version.warm_start_from) !== String(serving)) fail(`the new version starts from ${version.warm_start_from}, not ${serving}`);
      if ((await parent.innerText()).trim() !== version.warm_start_from_name) fail(`the page names the parent "${await parent.innerText()}", not ${version.warm_start_from_name}`);
      result.retrain.name = version.name;
      await page.getByTestId('warm-start-compare').click();
      await page.waitForURL(new RegExp(`/model-versions/compare\\?a=${serving}&b=${newVersion}$`));
      await page.getByText(version.name).first().waitFor();
      await screenshot(page, 'compare', { fullPage: true });
      done('compared');
    });

    await step('start a 10 % canary of the new version', async () => {
      await page.goto(`${baseUrl}/model-versions/${newVersion}`, { waitUntil: 'load' });
      const saved = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/deployments/${deploymentId}/traffic/`));
      await page.getByTestId('warm-start-canary').click();
      const response = await saved;
      if (response.status() !== 200) fail(`POST traffic answered ${response.status()}: ${await response.text()}`);
      result.canary = (await response.json()).traffic;
      await page.getByTestId('warm-start-canary-share').waitFor();
      await screenshot(page, 'canary', { fullPage: true });
      done('canary');
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
