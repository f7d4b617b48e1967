#!/usr/bin/env node
// Browser e2e of object detection (issue 15's proof), driven through the real UI of a live Sampan
// server: log in -> workspace -> project -> an object-detection dataset -> drop a COCO zip of digit
// scenes on the import drop zone and wait for the import job -> open an image in the box labeler:
// draw a box with the mouse, label it by key, drag another box to fix it, delete one and undo by key,
// save by key, go to the next image by key -> create a dataset version -> train with the fast preset
// -> open the report (mAP, the PR curves drawn, a bad case opened in the labeler) -> deploy as a
// hosted API -> Try it draws the detector's boxes on an image.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_ZIP (a COCO zip: annotations.json + images/), E2E_IMAGE (an image for Try it),
//      E2E_EPOCHS (default 8), E2E_IMAGE_SIZE (default 64), E2E_ARTIFACTS (screenshot folder),
//      CHROMIUM_PATH (default /usr/bin/chromium), E2E_IMPORT_TIMEOUT_S (default 180),
//      E2E_TRAIN_TIMEOUT_S (default 600).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line (and failure.png) otherwise.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, isApi, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const zipPath = process.env.E2E_ZIP;
const imagePath = process.env.E2E_IMAGE;
const epochs = Number(process.env.E2E_EPOCHS || 8);
const imageSize = Number(process.env.E2E_IMAGE_SIZE || 64);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts);
const importTimeoutMs = Number(process.env.E2E_IMPORT_TIMEOUT_S || 180) * 1000;
const trainTimeoutMs = Number(process.env.E2E_TRAIN_TIMEOUT_S || 600) * 1000;
const STEP_TIMEOUT_MS = 30_000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

function idFromUrl(page) {
  return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
}

/** The boxes the labeler lists: label and geometry in the image's pixels. */
async function listedBoxes(page) {
  return page.locator('[data-testid="labeler-box"]').evaluateAll((nodes) =>
    nodes.map((node) => {
      const [x, y, width, height] = (node.getAttribute('data-geometry') || '').split(',').map(Number);
      return { label: node.getAttribute('data-label'), x, y, width, height, selected: node.hasAttribute('data-selected') };
    }),
  );
}

/** Where an image point is on the screen: the canvas's corner + the view's offset + the point x scale. */
async function screenPoint(page, point) {
  const canvas = page.getByTestId('box-canvas');
  const frame = await canvas.boundingBox();
  if (!frame) fail('the box canvas has no box on the screen');
  const scale = Number(await canvas.getAttribute('data-scale'));
  const offsetX = Number(await canvas.getAttribute('data-offset-x'));
  const offsetY = Number(await canvas.getAttribute('data-offset-y'));
  return { x: frame.x + offsetX + point.x * scale, y: frame.y + offsetY + point.y * scale };
}

/** An empty square of the image (no box over it) of side `side`, scanning a grid; null if none. */
function emptySquare(boxes, width, height, side) {
  const overlaps = (x, y) => boxes.some((box) => x < box.x + box.width + 1 && x + side + 1 > box.x && y < box.y + box.height + 1 && y + side + 1 > box.y);
  for (let y = 2; y + side <= height - 2; y += 2) {
    for (let x = 2; x + side <= width - 2; x += 2) {
      if (!overlaps(x, y)) return { x, y };
    }
  }
  return null;
}

async function drag(page, from, to) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  // several moves, as a hand would: konva follows the pointer between down and up
  for (let i = 1; i <= 6; i += 1) await page.mouse.move(from.x + ((to.x - from.x) * i) / 6, from.y + ((to.y - from.y) * i) / 6);
  await page.mouse.up();
}

async function waitForLabeler(page, sampleId) {
  await page.waitForFunction(
    (expected) => {
      const labeler = document.querySelector('[data-testid="box-labeler"]');
      const canvas = document.querySelector('[data-testid="box-canvas"]');
      return labeler?.getAttribute('data-sample') === String(expected) && canvas?.getAttribute('data-ready') === 'true';
    },
    sampleId,
    { timeout: STEP_TIMEOUT_MS },
  );
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (!zipPath || !imagePath) fail('E2E_ZIP (a COCO zip) and E2E_IMAGE (an image for Try it) must be set');
  if (!Number.isInteger(epochs) || epochs < 1) fail(`E2E_EPOCHS must be a positive integer, got ${process.env.E2E_EPOCHS}`);
  const zipBytes = await readFile(zipPath).catch((error) => fail(`cannot read E2E_ZIP ${zipPath}: ${error.message}`));
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, zip ${zipPath} (${zipBytes.length} bytes), ${epochs} epochs at ${imageSize} px, artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pageErrors = collectPageErrors(page);
  logFailedCalls(page);
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

  try {
    await step('log in', () => logIn(page, baseUrl, username, password));

    await step('create a workspace and a project', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(`e2e detection ${suffix}`);
      await page.getByTestId('workspace-create-submit').click();
      await page.waitForURL(/\/workspaces\/\d+\/?$/);
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(`scenes ${suffix}`);
      await page.getByTestId('project-create-submit').click();
      await page.waitForURL(/\/projects\/\d+\/?$/);
      await page.getByTestId('create-dataset').waitFor();
    });

    const datasetId = await step('create an object-detection dataset', async () => {
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(`scenes ${suffix}`);
      await page.getByTestId('dataset-task-type').click();
      await page.getByRole('option', { name: /object detection/i }).first().click();
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/datasets/'));
      created.catch(() => {});
      await page.getByTestId('dataset-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/datasets/ answered ${response.status()}: ${await response.text()}`);
      const dataset = await response.json();
      if (dataset.task_type !== 'object_detection') fail(`the dataset was created as ${dataset.task_type}`);
      await page.waitForURL(/\/datasets\/\d+\/import\/?$/);
      log(`dataset #${dataset.id} (${dataset.task_type})`);
      return dataset.id;
    });

    const imported = await step(`drop ${path.basename(zipPath)} (COCO) on the import drop zone and wait for the import job`, async () => {
      const dropzone = page.getByTestId('import-dropzone');
      await dropzone.waitFor();
      const format = page.getByTestId('import-format');
      if (await format.count()) {
        await format.click();
        await page.getByRole('option', { name: /COCO/ }).first().click();
        log(`import format: ${await format.inputValue()}`);
      }
      const created = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/datasets/${datasetId}/imports/`), { timeout: 120_000 });
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
      const response = await created;
      if (![201, 202].includes(response.status())) fail(`POST imports answered ${response.status()}: ${await response.text()}`);
      const batch = await response.json();
      const badge = page.getByTestId(`import-status-${batch.id}`);
      await badge.waitFor();
      const deadline = Date.now() + importTimeoutMs;
      let status;
      for (;;) {
        status = ((await badge.textContent()) || '').trim();
        if (status === 'succeeded' || status === 'failed') break;
        if (Date.now() > deadline) fail(`import #${batch.id} still "${status}" after ${importTimeoutMs / 1000}s (is a worker running?)`);
        await page.waitForTimeout(300);
      }
      await screenshot(page, 'import-done');
      if (status !== 'succeeded') fail(`import #${batch.id} ${status}: ${await page.getByTestId(`import-error-${batch.id}`).innerText().catch(() => '(no error text)')}`);
      const count = Number(await page.getByTestId(`import-imported-${batch.id}`).innerText());
      if (!(count > 0)) fail('the import reports 0 imported images');
      log(`imported ${count} images with their boxes`);
      return count;
    });

    const labelerSample = await step('open an image of the grid in the box labeler', async () => {
      await page.getByTestId('tab-label').click();
      await page.getByTestId('detection-grid').waitFor();
      const tile = page.locator('[data-testid^="detection-tile-"]').first();
      await tile.waitFor();
      const sampleId = Number((await tile.getAttribute('data-testid')).replace('detection-tile-', ''));
      await tile.click();
      await page.waitForURL(new RegExp(`/datasets/${datasetId}/annotate/${sampleId}`));
      await waitForLabeler(page, sampleId);
      await screenshot(page, 'labeler-open');
      log(`labeler on sample #${sampleId} (${imported} images in the grid)`);
      return sampleId;
    });

    await step('draw a box with the mouse, label it by key, drag another to fix it, delete and undo by key, save by key', async () => {
      const canvas = page.getByTestId('box-canvas');
      const before = await listedBoxes(page);
      if (before.length === 0) fail('the imported image shows no boxes in the labeler');
      const labels = await page.locator('[data-testid^="labeler-label-"]').count();
      if (labels === 0) fail('the labeler lists no labels to draw with');
      // the image's size, from the sample's annotations as the labeler read them
      const current = await page.evaluate(
        async ({ dataset, sample }) => (await fetch(`/api/v1/datasets/${dataset}/samples/${sample}/annotations/`, { credentials: 'same-origin' })).json(),
        { dataset: datasetId, sample: labelerSample },
      );
      const side = Math.max(8, Math.round(Math.min(current.width, current.height) / 6));
      const spot = emptySquare(before, current.width, current.height, side);
      if (!spot) fail(`no empty ${side}px square left in the ${current.width}x${current.height} image to draw on`);

      // choose the label by key (the first label's key is 1), then draw: drag on the empty background
      await page.keyboard.press('1');
      await page.locator('[data-testid^="labeler-label-"][data-active]').first().waitFor();
      await drag(page, await screenPoint(page, { x: spot.x + 1, y: spot.y + 1 }), await screenPoint(page, { x: spot.x + side - 1, y: spot.y + side - 1 }));
      await page.waitForFunction((count) => document.querySelectorAll('[data-testid="labeler-box"]').length === count, before.length + 1);
      let boxes = await listedBoxes(page);
      const drawn = boxes.find((box) => Math.abs(box.x - spot.x) <= 2 && Math.abs(box.y - spot.y) <= 2);
      if (!drawn) fail(`the drawn box is not listed: ${JSON.stringify(boxes)}`);
      log(`drew a box at ${drawn.x},${drawn.y} ${drawn.width}x${drawn.height} labelled "${drawn.label}"`);

      // fix an imported box: drag it by a few pixels (select on press, move with the pointer)
      // an imported box whose centre no other box covers (pressing there grabs that box)
      const centreOf = (box) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
      const inside = (point, box) => point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height;
      const target = before.find((box) => !before.some((other) => other !== box && inside(centreOf(box), other))) ?? before[0];
      const centre = { x: target.x + target.width / 2, y: target.y + target.height / 2 };
      // a few pixels sideways, towards the side with room (a box may touch the image's edge)
      const step = Math.max(3, Math.round(current.width / 20));
      const shift = target.x + target.width + step <= current.width - 1 ? step : -Math.min(step, Math.floor(target.x));
      if (Math.abs(shift) < 1) fail(`the box at ${target.x},${target.y} ${target.width}x${target.height} has no room to move sideways`);
      const movedTo = { x: centre.x + shift, y: centre.y };
      await drag(page, await screenPoint(page, centre), await screenPoint(page, movedTo));
      await page.waitForFunction(
        ({ x, y, width }) =>
          [...document.querySelectorAll('[data-testid="labeler-box"]')].some((node) => {
            const [bx, by, bw] = (node.getAttribute('data-geometry') || '').split(',').map(Number);
            return Math.abs(by - y) < 1 && Math.abs(bw - width) < 0.5 && Math.abs(bx - x) >= 1;
          }),
        { x: target.x, y: target.y, width: target.width },
      );
      boxes = await listedBoxes(page);
      log(`moved a box from ${target.x},${target.y} (now ${boxes.filter((box) => box.selected).map((box) => `${box.x},${box.y}`).join(' ')})`);

      // delete the selected (moved) box by key, then undo by key: it comes back
      const selectedBefore = boxes.filter((box) => box.selected).length;
      if (selectedBefore !== 1) fail(`expected the moved box to be selected, ${selectedBefore} selected`);
      await page.keyboard.press('Delete');
      await page.waitForFunction((count) => document.querySelectorAll('[data-testid="labeler-box"]').length === count, before.length);
      await page.keyboard.press('Control+z');
      await page.waitForFunction((count) => document.querySelectorAll('[data-testid="labeler-box"]').length === count, before.length + 1);
      await screenshot(page, 'labeler-edited');

      // save by key: a PUT with the revision read, answered 200 with the new revision
      const revision = Number(await page.getByTestId('box-labeler').getAttribute('data-revision'));
      const saved = page.waitForResponse((response) => isApi(response, 'PUT', `/api/v1/datasets/${datasetId}/samples/${labelerSample}/annotations/`));
      saved.catch(() => {});
      await page.keyboard.press('Control+s');
      const response = await saved;
      if (response.status() !== 200) fail(`saving the boxes answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      if (sent.revision !== revision) fail(`the save sent revision ${sent.revision}, the labeler had ${revision}`);
      const body = await response.json();
      if (body.annotations.length !== before.length + 1) fail(`saved ${body.annotations.length} boxes, expected ${before.length + 1}`);
      const moved = body.annotations.some((record) => Math.abs(record.geometry.y - target.y) < 1 && Math.abs(record.geometry.x - target.x) >= 1);
      if (!moved) fail('the saved boxes do not hold the moved box');
      await canvas.waitFor();
      log(`saved ${body.annotations.length} boxes (revision ${revision} -> ${body.revision})`);
    });

    await step('go to the next image by key', async () => {
      const position = await page.getByTestId('labeler-position').innerText();
      await page.keyboard.press('d');
      await page.waitForFunction(
        (from) => {
          const labeler = document.querySelector('[data-testid="box-labeler"]');
          return labeler && labeler.getAttribute('data-sample') !== String(from) && document.querySelector('[data-testid="box-canvas"]')?.getAttribute('data-ready') === 'true';
        },
        labelerSample,
      );
      log(`next image: ${position} -> ${await page.getByTestId('labeler-position').innerText()}`);
    });

    const versionName = await step('create a dataset version', async () => {
      await page.goto(`${baseUrl}/datasets/${datasetId}/versions`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('version-seed').fill('7');
      const created = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/datasets/${datasetId}/versions/`));
      created.catch(() => {});
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
      const version = await response.json();
      await page.getByTestId(`version-counts-${version.id}`).waitFor();
      log(`version ${version.name}: ${version.sample_count} images`);
      return version.name;
    });

    const jobId = await step(`train with the fast preset (${epochs} epochs, ${imageSize} px)`, async () => {
      await page.getByTestId('tab-train').click();
      await page.getByTestId('training-form').waitFor();
      const selected = await page.getByTestId('training-version-select').inputValue();
      if (!selected.startsWith(versionName)) fail(`the training form picked "${selected}", expected ${versionName}`);
      await page.getByTestId('preset-card-fast').click();
      await page.getByTestId('advanced-settings-toggle').click();
      await page.getByTestId('param-epochs').fill(String(epochs));
      await page.getByTestId('param-epochs').press('Tab');
      const sizeInput = page.getByTestId('param-image_size');
      await sizeInput.click();
      await sizeInput.press('Control+a');
      await sizeInput.pressSequentially(String(imageSize));
      await sizeInput.press('Tab');
      log(`advanced settings: epochs ${await page.getByTestId('param-epochs').inputValue()}, image size ${await sizeInput.inputValue()}`);
      await screenshot(page, 'train-form');
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/training-jobs/'));
      created.catch(() => {});
      await page.getByTestId('training-start').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/training-jobs/ answered ${response.status()}: ${await response.text()}`);
      const job = await response.json();
      await page.waitForURL(new RegExp(`/jobs/${job.id}/?$`));
      const sent = response.request().postDataJSON();
      if (sent.params?.epochs !== epochs) fail(`the training request sent ${JSON.stringify(sent)}`);
      // the image size only makes the run shorter: a form that did not take it is reported, not fatal
      if (sent.params?.image_size !== imageSize) log(`note: the request trains at the preset's image size: ${JSON.stringify(sent.params)}`);
      log(`training job #${job.id}: ${JSON.stringify(sent)}`);
      return job.id;
    });

    await step(`wait for job #${jobId} to succeed`, async () => {
      const badge = page.getByTestId('job-detail-status');
      const deadline = Date.now() + trainTimeoutMs;
      let last = '';
      for (;;) {
        const status = ((await badge.textContent()) || '').trim();
        if (status !== last) {
          log(`job #${jobId}: ${status}`);
          last = status;
        }
        if (TERMINAL.has(status)) break;
        if (Date.now() > deadline) fail(`job #${jobId} still "${status}" after ${trainTimeoutMs / 1000}s`);
        await page.waitForTimeout(500);
      }
      await screenshot(page, 'training-done', { fullPage: true });
      if (last !== 'succeeded') fail(`job #${jobId} ended "${last}": ${(await page.getByTestId('job-error').innerText().catch(() => '(no error text)')).trim()}`);
    });

    const modelVersionId = await step('open the report: mAP, per-class AP and the PR curves drawn', async () => {
      await page.getByTestId('training-model-link').click();
      await page.waitForURL(/\/model-versions\/\d+\/?$/);
      await page.getByTestId('det-map50').waitFor();
      const figures = {};
      for (const name of ['map', 'map50', 'map75']) figures[name] = (await page.getByTestId(`det-${name}`).innerText()).trim();
      if (Object.values(figures).some((value) => !/%$/.test(value))) fail(`the report's mAP figures read ${JSON.stringify(figures)}`);
      await page.locator('[data-testid^="det-class-"]').first().waitFor();
      const curves = page.getByTestId('det-pr-curves');
      const series = (await curves.getAttribute('data-series')) || '';
      if (!series) fail('the report has no class with a PR curve');
      await curves.locator('.recharts-line-curve').first().waitFor();
      const drawn = await curves.locator('.recharts-line-curve').evaluateAll((paths) => paths.filter((node) => (node.getAttribute('d') || '').length > 10).length);
      if (drawn === 0) fail('the PR curve lines have no path drawn');
      log(`mAP@[.5:.95] ${figures.map}, mAP@.5 ${figures.map50}, mAP@.75 ${figures.map75}; ${drawn} PR curve(s) drawn for ${series}`);
      await page.getByTestId('det-bad-cases').scrollIntoViewIfNeeded();
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: 1440, height: Math.min(4000, height) });
      await page.waitForTimeout(800);
      await page.screenshot({ path: path.join(artifacts, 'report.png') });
      await page.setViewportSize({ width: 1440, height: 900 });
      return idFromUrl(page);
    });

    await step('open a bad case in the box labeler', async () => {
      const cases = page.locator('[data-testid^="det-bad-case-open-"]');
      if ((await cases.count()) === 0) fail('the report lists no bad case (false detection or missed object) to open');
      const first = cases.first();
      const sampleId = Number((await first.getAttribute('data-testid')).replace('det-bad-case-open-', ''));
      const drawnBoxes = await page.getByTestId(`det-bad-case-${sampleId}`).locator('[data-testid="drawn-box"]').count();
      await first.click();
      await page.waitForURL(new RegExp(`/datasets/${datasetId}/annotate/${sampleId}`));
      await waitForLabeler(page, sampleId);
      await screenshot(page, 'bad-case-in-labeler');
      log(`bad case #${sampleId} (${drawnBoxes} boxes drawn on it) opened in the labeler`);
    });

    const deploymentId = await step('deploy the model version as a hosted API', async () => {
      await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('deploy-buttons').waitFor();
      await page.getByTestId('deploy-hosted').click();
      await page.getByTestId('deployment-name-input').fill(`scenes-${suffix}`);
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/deployments/'));
      created.catch(() => {});
      await page.getByTestId('deployment-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/deployments/ answered ${response.status()}: ${await response.text()}`);
      const deployment = await response.json();
      await page.waitForURL(new RegExp(`/deployments/${deployment.id}/`));
      log(`deployment #${deployment.id} ${deployment.status}`);
      return deployment.id;
    });

    await step('Try it: the detector\'s boxes drawn on the image', async () => {
      await page.getByTestId('deployment-tab-try').click();
      await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
      // a low threshold: a few epochs on 60 images make a weak detector, and its boxes are what is shown
      await page.getByTestId('try-score-threshold').fill('0.01');
      await page.getByTestId('try-max-detections').fill('10');
      await page.locator('input[type="file"]').setInputFiles(imagePath);
      await page.getByTestId('try-preview').waitFor();
      const called = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/try/`), { timeout: 60_000 });
      called.catch(() => {});
      await page.getByTestId('try-submit').click();
      const response = await called;
      if (response.status() !== 200) fail(`try answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      if (body.kind !== 'detection_prediction') fail(`try answered a ${body.kind}`);
      const boxes = body.predictions[0].boxes;
      const drawn = page.getByTestId('try-boxes');
      await drawn.waitFor();
      const shown = Number(await drawn.getAttribute('data-boxes'));
      if (shown !== boxes.length) fail(`the answer has ${boxes.length} boxes, the picture draws ${shown}`);
      if (shown === 0) fail('the detector found no box at score threshold 0.01');
      await page.waitForTimeout(300);
      await screenshot(page, 'try-boxes');
      log(`Try it drew ${shown} boxes: ${boxes.slice(0, 5).map((box) => `${box.label} ${box.score.toFixed(2)}`).join(', ')}`);
    });

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
