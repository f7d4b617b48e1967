#!/usr/bin/env node
// Browser e2e of image classification, driven through the real UI of a live Sampan server:
// log in -> workspace -> project -> dataset -> drop a zip of digit PNGs on the drop zone and wait
// for the import job -> label unlabeled samples by keyboard -> create a dataset version -> train
// with the fast preset (epochs from the advanced settings) and watch the live curves get points ->
// open the model version's evaluation report -> click a confusion-matrix cell and see its images.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_ZIP (a zip with a folder per class and some unlabeled files at its root),
//      E2E_EPOCHS (default 2), E2E_ARTIFACTS (screenshot folder, default ./e2e-artifacts),
//      CHROMIUM_PATH (default /usr/bin/chromium), E2E_IMPORT_TIMEOUT_S (default 180),
//      E2E_TRAIN_TIMEOUT_S (default 900).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line (and failure.png) otherwise.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, firstOf, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const zipPath = process.env.E2E_ZIP;
const epochs = Number(process.env.E2E_EPOCHS || 2);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts);
const importTimeoutMs = Number(process.env.E2E_IMPORT_TIMEOUT_S || 180) * 1000;
const trainTimeoutMs = Number(process.env.E2E_TRAIN_TIMEOUT_S || 900) * 1000;
const STEP_TIMEOUT_MS = 20_000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const LABEL_BY_KEYBOARD = 2;

function idFromUrl(page) {
  return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
}

/** Picks `optionName` in a Mantine Select found by test id. */
async function choose(page, testId, optionName) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: optionName }).first().click();
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (!zipPath) fail('E2E_ZIP must name a zip of images (a folder per class, some unlabeled files at its root)');
  if (!Number.isInteger(epochs) || epochs < 1) fail(`E2E_EPOCHS must be a positive integer, got ${process.env.E2E_EPOCHS}`);
  const zipBytes = await readFile(zipPath).catch((error) => fail(`cannot read E2E_ZIP ${zipPath}: ${error.message}`));
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, zip ${zipPath} (${zipBytes.length} bytes), ${epochs} epochs, artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);

  const pageErrors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) log(`console error: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !url.pathname.startsWith('/api/')) return;
    const expected = url.pathname === '/api/v1/auth/me/' ? ' (expected before login)' : '';
    log(`${response.request().method()} ${url.pathname}${url.search} answered ${response.status()}${expected}`);
  });

  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

  try {
    await step('log in', async () => {
      const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/?$/), error: page.getByTestId('login-error').waitFor() });
      if (outcome === 'error') fail(`login refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
    });

    await step('create a workspace', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(`e2e vision ${suffix}`);
      await page.getByTestId('workspace-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/\d+\/?$/), error: page.getByTestId('create-workspace-error').waitFor() });
      if (outcome === 'error') fail(`workspace refused: ${(await page.getByTestId('create-workspace-error').innerText()).trim()}`);
    });

    const projectId = await step('create a project', async () => {
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(`digits ${suffix}`);
      await page.getByTestId('project-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/projects\/\d+\/?$/), error: page.getByTestId('create-project-error').waitFor() });
      if (outcome === 'error') fail(`project refused: ${(await page.getByTestId('create-project-error').innerText()).trim()}`);
      await page.getByTestId('create-dataset').waitFor();
      return idFromUrl(page);
    });

    const datasetId = await step('create an image classification dataset', async () => {
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(`digits ${suffix}`);
      await page.getByTestId('dataset-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/datasets\/\d+\/import\/?$/), error: page.getByTestId('create-dataset-error').waitFor() });
      if (outcome === 'error') fail(`dataset refused: ${(await page.getByTestId('create-dataset-error').innerText()).trim()}`);
      await page.getByTestId('dataset-title').waitFor();
      const id = idFromUrl(page);
      log(`project #${projectId}, dataset #${id}`);
      return id;
    });

    const imported = await step(`drop ${path.basename(zipPath)} on the import drop zone and wait for the import job`, async () => {
      const dropzone = page.getByTestId('import-dropzone');
      await dropzone.waitFor();
      const href = await page.getByTestId('import-export-download').getAttribute('href');
      if (href !== `/api/v1/datasets/${datasetId}/export/`) fail(`the export button links to ${href}`);
      await screenshot(page, 'import-empty');
      const created = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/api/v1/datasets/${datasetId}/imports/`,
        { timeout: 120_000 },
      );
      created.catch(() => {});
      const dataTransfer = await page.evaluateHandle(
        ({ base64, name }) => {
          const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
          const transfer = new DataTransfer();
          transfer.items.add(new File([bytes], name, { type: 'application/zip' }));
          return transfer;
        },
        { base64: zipBytes.toString('base64'), name: path.basename(zipPath) },
      );
      await dropzone.dispatchEvent('dragover', { dataTransfer });
      await dropzone.dispatchEvent('drop', { dataTransfer });
      const sawUploadBar = await page
        .getByTestId('upload-progress')
        .waitFor({ timeout: 3000 })
        .then(() => true)
        .catch(() => false);
      log(sawUploadBar ? 'upload progress bar shown' : 'upload finished before the progress bar could be seen');
      const response = await created;
      if (![201, 202].includes(response.status())) fail(`POST imports answered ${response.status()}: ${await response.text()}`);
      const batch = await response.json();
      log(`import #${batch.id} answered ${response.status()} (${batch.status}${batch.job ? `, job #${batch.job}` : ''})`);
      const badge = page.getByTestId(`import-status-${batch.id}`);
      await badge.waitFor();
      const deadline = Date.now() + importTimeoutMs;
      let last = '';
      let shotRunning = false;
      for (;;) {
        const status = ((await badge.textContent()) || '').trim();
        if (status !== last) {
          const progress = await page.getByTestId(`import-progress-${batch.id}`).getAttribute('data-value').catch(() => null);
          log(`import #${batch.id}: ${status}${progress !== null ? ` (${progress}%)` : ''}`);
          last = status;
        }
        if (status === 'running' && !shotRunning) {
          shotRunning = true;
          await screenshot(page, 'import-running');
        }
        if (status === 'succeeded' || status === 'failed') break;
        if (Date.now() > deadline) fail(`import #${batch.id} still "${status}" after ${importTimeoutMs / 1000}s (is a worker running?)`);
        await page.waitForTimeout(300);
      }
      await screenshot(page, 'import-done');
      if (last !== 'succeeded') {
        const error = await page.getByTestId(`import-error-${batch.id}`).innerText().catch(() => '(no error text)');
        fail(`import #${batch.id} ${last}: ${error}`);
      }
      const count = Number(await page.getByTestId(`import-imported-${batch.id}`).innerText());
      const problems = await page.getByTestId('import-problem').count();
      log(`imported ${count} images, ${problems} problem(s) reported`);
      if (!(count > 0)) fail('the import reports 0 imported images');
      return count;
    });

    await step(`label ${LABEL_BY_KEYBOARD} unlabeled samples in the grid by keyboard`, async () => {
      await page.getByTestId('tab-label').click();
      const progress = page.getByTestId('labeling-progress');
      await progress.waitFor();
      await page
        .waitForFunction(
          (expected) => Number(document.querySelector('[data-testid="labeling-progress"]')?.getAttribute('data-total')) === expected,
          imported,
        )
        .catch(async () => fail(`the labeler counts ${await progress.getAttribute('data-total')} samples, the import said ${imported}`));
      const before = Number(await progress.getAttribute('data-labeled'));
      const total = Number(await progress.getAttribute('data-total'));
      await choose(page, 'labeling-filter', /^Unlabeled/);
      await page.waitForFunction(
        () => {
          const tiles = [...document.querySelectorAll('[data-testid^="sample-tile-"]')];
          return tiles.length > 0 && tiles.every((tile) => tile.getAttribute('data-label') === '');
        },
        null,
        { timeout: STEP_TIMEOUT_MS },
      );
      const tiles = page.locator('[data-testid^="sample-tile-"]');
      if ((await tiles.count()) < LABEL_BY_KEYBOARD) fail(`only ${await tiles.count()} unlabeled samples shown`);
      const ids = [];
      for (let index = 0; index < LABEL_BY_KEYBOARD; index += 1) {
        ids.push(Number((await tiles.nth(index).getAttribute('data-testid')).replace('sample-tile-', '')));
      }
      await tiles.first().click();
      await screenshot(page, 'labeler');
      for (const [index, id] of ids.entries()) {
        const current = await page.locator('[data-testid^="sample-tile-"][data-current]').getAttribute('data-testid');
        if (current !== `sample-tile-${id}`) fail(`expected sample ${id} to be current, found ${current}`);
        const version = Number(await page.getByTestId(`sample-tile-${id}`).getAttribute('data-label-version'));
        const key = String(index + 1);
        const saved = page.waitForResponse(
          (response) => response.request().method() === 'PATCH' && new URL(response.url()).pathname === `/api/v1/datasets/${datasetId}/samples/${id}/`,
        );
        saved.catch(() => {});
        await page.keyboard.press(key);
        const response = await saved;
        const sent = response.request().postDataJSON();
        if (response.status() !== 200) fail(`labeling sample ${id} answered ${response.status()}: ${await response.text()}`);
        if (sent.label_version !== version) fail(`the write for sample ${id} sent label_version ${sent.label_version}, the grid showed ${version}`);
        const body = await response.json();
        log(`key ${key}: sample ${id} -> label "${body.label_name}" (label_version ${version} -> ${body.label_version})`);
        await page.waitForFunction(
          (testId) => document.querySelector(`[data-testid="${testId}"]`)?.getAttribute('data-label') !== '',
          `sample-tile-${id}`,
        );
      }
      await page.waitForFunction(
        (expected) => Number(document.querySelector('[data-testid="labeling-progress"]')?.getAttribute('data-labeled')) === expected,
        before + LABEL_BY_KEYBOARD,
      );
      log(`progress ${before} -> ${before + LABEL_BY_KEYBOARD} of ${total} labeled`);
      await screenshot(page, 'labeled');
    });

    await step('look at the statistics', async () => {
      await page.getByTestId('tab-statistics').click();
      await page.getByTestId('class-counts-chart').waitFor();
      await page.locator('[data-testid="class-counts-chart"] .recharts-bar-rectangle').first().waitFor();
      await screenshot(page, 'statistics');
    });

    const versionName = await step('create a dataset version', async () => {
      await page.getByTestId('tab-versions').click();
      await page.getByTestId('version-seed').fill('7');
      const created = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/api/v1/datasets/${datasetId}/versions/`,
      );
      created.catch(() => {});
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
      const version = await response.json();
      await page.getByTestId(`version-counts-${version.id}`).waitFor();
      log(`version ${version.name}: ${version.sample_count} samples, ${JSON.stringify(version.totals)}`);
      await screenshot(page, 'version');
      return version.name;
    });

    const jobId = await step(`start training with the fast preset and ${epochs} epochs`, async () => {
      await page.getByTestId('tab-train').click();
      await page.getByTestId('training-form').waitFor();
      const selected = await page.getByTestId('training-version-select').inputValue();
      if (!selected.startsWith(versionName)) fail(`the training form picked "${selected}", expected ${versionName}`);
      await page.getByTestId('preset-card-fast').click();
      // the preset fitted to this small dataset and the workers online: what it changes, and why
      const recommendation = page.getByTestId('preset-recommendation');
      await recommendation.waitFor();
      const choices = recommendation.getByTestId('auto-choice');
      const chosen = await choices.count();
      if (chosen < 1) fail(`the recommendation shows no choice for ~400 images: ${await recommendation.innerText()}`);
      for (let i = 0; i < chosen; i += 1) {
        const reason = ((await choices.nth(i).getByTestId('auto-choice-reason').innerText()) || '').trim();
        if (!reason) fail(`choice ${await choices.nth(i).getAttribute('data-param')} has no reason`);
        log(`chosen for the data: ${(await choices.nth(i).innerText()).replace(/\s+/g, ' ')}`);
      }
      await page.getByTestId('advanced-settings-toggle').click();
      await page.getByTestId('param-epochs').fill(String(epochs));
      await screenshot(page, 'train-form');
      const created = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/v1/training-jobs/',
      );
      created.catch(() => {});
      await page.getByTestId('training-start').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/training-jobs/ answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      if (sent.preset !== 'fast' || sent.params?.epochs !== epochs) fail(`the request sent ${JSON.stringify(sent)}`);
      if ('adapt' in sent) fail(`the form sent adapt without the switch: ${JSON.stringify(sent)}`);
      const job = await response.json();
      await page.waitForURL(new RegExp(`/jobs/${job.id}/?$`));
      await page.getByTestId('training-monitor').waitFor();
      log(`training job #${job.id} queued with ${JSON.stringify(sent)}`);
      return job.id;
    });

    await step(`watch job #${jobId}'s live curves until it succeeds (${trainTimeoutMs / 1000}s)`, async () => {
      const badge = page.getByTestId('job-detail-status');
      const counter = page.getByTestId('curve-point-count');
      const deadline = Date.now() + trainTimeoutMs;
      let lastStatus = '';
      let lastPoints = -1;
      let livePoints = 0;
      let shotLive = false;
      const eventsUrls = [];
      const onRequest = (request) => {
        const url = new URL(request.url());
        if (url.pathname === `/api/v1/jobs/${jobId}/events/`) eventsUrls.push(url.search);
      };
      page.on('request', onRequest);
      for (;;) {
        const status = ((await badge.textContent()) || '').trim();
        const steps = Number((await counter.getAttribute('data-steps')) || 0);
        const epochPoints = Number((await counter.getAttribute('data-epochs')) || 0);
        const points = steps + epochPoints;
        if (status !== lastStatus || points !== lastPoints) {
          const epoch = await page.getByTestId('train-epoch').innerText();
          const eta = await page.getByTestId('train-eta').innerText();
          log(`job #${jobId}: ${status}, epoch ${epoch}, ETA ${eta}, ${steps} step + ${epochPoints} epoch points`);
          lastStatus = status;
          lastPoints = points;
        }
        if (!TERMINAL.has(status) && points > 0) {
          livePoints = Math.max(livePoints, points);
          if (!shotLive && (epochPoints > 0 || steps >= 3)) {
            shotLive = true;
            await screenshot(page, 'training-live', { fullPage: true });
          }
        }
        if (TERMINAL.has(status)) break;
        if (Date.now() > deadline) {
          await screenshot(page, 'training-timeout');
          fail(`job #${jobId} still "${status}" after ${trainTimeoutMs / 1000}s`);
        }
        await page.waitForTimeout(400);
      }
      page.off('request', onRequest);
      await screenshot(page, 'training-done', { fullPage: true });
      if (lastStatus !== 'succeeded') {
        const error = await page.getByTestId('job-error').innerText().catch(() => '(no error text shown)');
        fail(`job #${jobId} ended "${lastStatus}": ${error.trim()}`);
      }
      if (livePoints === 0) fail('no curve point appeared while the job was running: the curves did not update live');
      const incremental = eventsUrls.filter((search) => /[?&]after=\d+/.test(search)).length;
      log(`${livePoints} points seen while running; ${eventsUrls.length} event polls, ${incremental} of them with after=<seq>`);
      if (eventsUrls.length > 1 && incremental === 0) fail('the curves polled without after=<seq>: every poll refetched all points');
    });

    const modelVersionId = await step('open the model version\'s evaluation report', async () => {
      await page.getByTestId('training-model-link').click();
      await page.waitForURL(/\/model-versions\/\d+\/?$/);
      await page.getByTestId('eval-accuracy').waitFor({ timeout: 30_000 });
      const accuracy = await page.getByTestId('eval-accuracy').innerText();
      const name = await page.getByTestId('model-version-name').innerText();
      log(`${name}: test accuracy ${accuracy}`);
      // The whole report in one picture: a viewport as tall as the page (a full-page capture would
      // repeat the fixed header in the middle).
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: 1440, height: Math.min(4000, height) });
      await page.waitForTimeout(800);
      await screenshot(page, 'evaluation');
      await page.screenshot({ path: path.join(artifacts, 'evaluation.png') });
      log(`screenshot ${path.join(artifacts, 'evaluation.png')}`);
      await page.setViewportSize({ width: 1440, height: 900 });
      return idFromUrl(page);
    });

    await step('click a non-empty confusion-matrix cell and see its images', async () => {
      const cells = page.locator('[data-testid^="cm-cell-"]:not([data-count="0"])');
      const count = await cells.count();
      if (count === 0) fail('the confusion matrix has no non-empty cell');
      // An off-diagonal cell shows mistakes when there are any; else the first diagonal one.
      const testIds = await cells.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid')));
      const offDiagonal = testIds.find((testId) => {
        const [, , t, p] = testId.split('-');
        return t !== p;
      });
      const target = offDiagonal ?? testIds[0];
      const expected = Number(await page.getByTestId(target).getAttribute('data-count'));
      await page.getByTestId(target).click();
      const panel = page.getByTestId('cm-cell-samples');
      await panel.waitFor();
      const thumbs = panel.locator('[data-testid^="cm-sample-"]');
      await thumbs.first().waitFor();
      const shown = await thumbs.count();
      if (shown !== expected) fail(`cell ${target} says ${expected} images, the panel shows ${shown}`);
      const loaded = await panel.evaluate(async (node) => {
        const images = [...node.querySelectorAll('img')];
        await Promise.all(images.map((image) => (image.complete ? null : new Promise((resolve) => image.addEventListener('loadend', resolve, { once: true }) || setTimeout(resolve, 5000)))));
        return images.map((image) => ({ src: image.getAttribute('src'), ok: image.complete && image.naturalWidth > 0 }));
      });
      await page.waitForTimeout(300);
      await screenshot(page, 'confusion-cell');
      const broken = loaded.filter((image) => !image.ok);
      if (broken.length) {
        fail(
          `${broken.length} of ${loaded.length} thumbnails did not load, e.g. ${broken[0].src}: the report's confusion_matrix.samples ` +
            `must hold sample ids of dataset #${datasetId}`,
        );
      }
      log(`cell ${target}: ${shown} test images shown, all thumbnails loaded`);
      await page.getByTestId('cm-fix-labels').click();
      await page.waitForURL(new RegExp(`/datasets/${datasetId}/label\\?samples=`));
      await page.getByTestId('labeling-sample-filter').waitFor();
      await page
        .waitForFunction((expected) => document.querySelectorAll('[data-testid^="sample-tile-"]').length === expected, shown)
        .catch(() => {});
      const tiles = await page.locator('[data-testid^="sample-tile-"]').count();
      if (tiles !== shown) fail(`the labeler shows ${tiles} samples for the cell's ${shown}`);
      await screenshot(page, 'fix-labels');
      log(`"fix labels" opened the labeler with the cell's ${tiles} samples`);
    });

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: dataset #${datasetId}, training job #${jobId}, model version #${modelVersionId}`);
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
