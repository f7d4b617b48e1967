#!/usr/bin/env node
// Browser e2e of the data service (issue 16's proof), driven through the real UI of a live Sampan
// server, on a digits dataset with few labels prepared by the pytest wrapper:
// owner: Smart labeling tab -> start a round, wait for its job -> accept suggestions in bulk ("all of
// class X above a confidence"), a few classes -> Quality tab -> run a report, wait -> the near
// duplicates and the likely mislabels are found (the planted ones among them) -> open the mislabels
// in the labeler (the grid shows them, the activity log is in the preview) -> relabel one by mistake,
// revert the slip from the activity log, fix it -> Tasks tab -> a labeling
// task of unlabeled samples for the annotator;
// annotator (own browser context): My labeling -> label every assigned sample by clicking a label;
// owner: the task's Review tab -> reject one answer with a comment, accept the rest in bulk ->
// Versions tab -> a reviewed-only version.
//
// Env: SAMPAN_URL, E2E_OWNER, E2E_ANNOTATOR, E2E_PASSWORD, E2E_DATASET (id), E2E_MISLABELED and
//      E2E_DUPLICATES (planted sample ids, comma-separated), E2E_QUEUE (samples in the task),
//      E2E_ARTIFACTS (screenshots and outcome.json), CHROMIUM_PATH, E2E_JOB_TIMEOUT_S (default 120).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line (and failure.png) otherwise.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, firstOf, isApi, launchChromium, log, logFailedCalls, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const owner = process.env.E2E_OWNER;
const annotator = process.env.E2E_ANNOTATOR;
const password = process.env.E2E_PASSWORD;
const datasetId = Number(process.env.E2E_DATASET);
const ids = (value) => (value || '').split(',').filter(Boolean).map(Number);
// "sample id:true class" pairs
const truth = new Map((process.env.E2E_MISLABELED || '').split(',').filter(Boolean).map((pair) => pair.split(':')));
const mislabeled = [...truth.keys()].map(Number);
const duplicates = ids(process.env.E2E_DUPLICATES);
const queueSize = Number(process.env.E2E_QUEUE || 4);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts);
const jobTimeoutMs = Number(process.env.E2E_JOB_TIMEOUT_S || 120) * 1000;
const STEP_TIMEOUT_MS = 30_000;
/** Classes whose suggestions are accepted in bulk (the rest stay unlabeled for the labeling task). */
const BULK_CLASSES = 5;
/** The bulk accept's confidence floor, from the panel's default 0.95 down by slider steps of 0.01. */
const FLOOR_STEPS_DOWN = 45;

/** Signs in through the login page; `home` is where the user lands (workspaces, or an annotator's queue). */
async function logInAs(page, username, home) {
  const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
  if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  const outcome = await firstOf({ ok: page.waitForURL(home), error: page.getByTestId('login-error').waitFor() });
  if (outcome === 'error') fail(`login of ${username} refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
}

async function newPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  logFailedCalls(page);
  return { context, page, errors: collectPageErrors(page) };
}

/** Picks the option named `name` (a string: exactly; a RegExp) of a Mantine Select/MultiSelect found by test id. */
async function choose(page, testId, name) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', typeof name === 'string' ? { name, exact: true } : { name }).first().click();
}

async function main() {
  for (const [name, value] of Object.entries({ E2E_OWNER: owner, E2E_ANNOTATOR: annotator, E2E_PASSWORD: password })) {
    if (!value) fail(`${name} must be set`);
  }
  if (!Number.isInteger(datasetId) || datasetId < 1) fail(`E2E_DATASET must be a dataset id, got ${process.env.E2E_DATASET}`);
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, dataset ${datasetId}, planted mislabels ${mislabeled}, duplicates ${duplicates}, artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const ownerSide = await newPage(browser);
  const page = ownerSide.page;
  const outcome = { accepted: 0, task: null, task_samples: [] };
  const datasetUrl = `${baseUrl}/datasets/${datasetId}`;
  let current = page;

  try {
    await step('log in as the owner', () => logInAs(page, owner, /\/workspaces\/?$/));

    // --- smart labeling ---------------------------------------------------------------------
    await step('start a smart-labeling round and wait for its job', async () => {
      await page.goto(`${datasetUrl}/smart`);
      await page.getByTestId('smart-panel').waitFor();
      const start = page.getByTestId('smart-start');
      // enabled once the labels' counts are in (before that it says why it cannot start)
      await page.waitForFunction(() => document.querySelector('[data-testid="smart-start"]')?.disabled === false, null, { timeout: 10_000 }).catch(() => {});
      if (await start.isDisabled()) fail(`the round cannot start: ${(await page.getByTestId('smart-start-reason').innerText().catch(() => '?')).trim()}`);
      const created = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/smart-labeling/`));
      await start.click();
      const response = await created;
      if (response.status() !== 202) fail(`starting a round answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      const round = await response.json();
      const done = await firstOf({
        latest: page.locator(`[data-testid="smart-latest"][data-round="${round.id}"]`).waitFor({ timeout: jobTimeoutMs }),
        failed: page.getByTestId('smart-failed').waitFor({ timeout: jobTimeoutMs }),
      });
      if (done === 'failed') fail(`the round failed: ${(await page.getByTestId('smart-failed').innerText()).trim()}`);
      await page.getByTestId('suggestions-table').waitFor();
      await screenshot(page, 'smart-round', { fullPage: true });
    });

    await step(`accept suggestions in bulk for ${BULK_CLASSES} classes`, async () => {
      if ((await page.getByTestId('suggestions-table').locator('[data-testid^="suggestion-row-"]').count()) === 0) fail('no pending suggestions');
      let done = 0;
      for (let digit = 0; digit <= 9 && done < BULK_CLASSES; digit += 1) {
        await choose(page, 'suggestions-class', String(digit));
        const lower = page.getByTestId('suggestions-confidence').getByRole('slider').first();
        await lower.focus();
        for (let i = 0; i < FLOOR_STEPS_DOWN; i += 1) await page.keyboard.press('ArrowLeft');
        const bulk = page.getByTestId('suggestions-bulk-accept');
        await page.waitForTimeout(300); // the count request of the new filter
        if (await bulk.isDisabled()) {
          log(`class ${digit}: nothing to accept at this confidence`);
          continue;
        }
        await bulk.click();
        await page.getByTestId('suggestions-bulk-summary').waitFor();
        const accepted = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/suggestions/accept/`));
        await page.getByTestId('suggestions-bulk-confirm-button').click();
        const answer = await accepted;
        if (!answer.ok()) fail(`bulk accept answered ${answer.status()}: ${(await answer.text()).slice(0, 300)}`);
        const body = await answer.json();
        log(`class ${digit}: accepted ${body.accepted}, skipped ${body.skipped.length}`);
        outcome.accepted += body.accepted;
        done += 1;
      }
      if (outcome.accepted === 0) fail('no suggestion was accepted');
      await screenshot(page, 'suggestions-accepted', { fullPage: true });
    });

    // --- the quality report -------------------------------------------------------------------
    await step('run the quality report and see the planted problems', async () => {
      await page.goto(`${datasetUrl}/quality`);
      await page.getByTestId('quality-panel').waitFor();
      const created = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/quality-reports/`));
      await page.getByTestId('run-quality-report').click();
      const response = await created;
      if (response.status() !== 202) fail(`running a report answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      const done = await firstOf({
        report: page.getByTestId('finding-likely_mislabeled').waitFor({ timeout: jobTimeoutMs }),
        error: page.getByTestId('quality-error').waitFor({ timeout: jobTimeoutMs }),
      });
      if (done === 'error') fail(`the report failed: ${(await page.getByTestId('quality-error').innerText()).trim()}`);
      await page.getByTestId('finding-near_duplicates').waitFor();
      const groups = page.getByTestId('finding-near_duplicates').getByTestId('duplicate-group');
      if ((await groups.count()) < 1) fail('the near-duplicate finding shows no group');
      await screenshot(page, 'quality-report', { fullPage: true });
    });

    await step('open the likely mislabels in the labeler', async () => {
      const finding = page.getByTestId('finding-likely_mislabeled');
      const href = (await finding.getByTestId('open-in-labeler').getAttribute('href')) || '';
      const opened = new URL(href, baseUrl).searchParams.get('samples')?.split(',').map(Number) ?? [];
      const found = mislabeled.filter((id) => opened.includes(id));
      if (found.length === 0) fail(`the mislabel finding opens ${opened.slice(0, 20)}, none of the planted ${mislabeled}`);
      await finding.getByTestId('open-in-labeler').click();
      await page.waitForURL(/\/label\?samples=/);
      await page.getByTestId(`sample-tile-${found[0]}`).click();
      await page.getByTestId('activity-log').waitFor();
      await screenshot(page, 'mislabels-in-labeler');
      outcome.fixed = { sample: found[0], label: truth.get(String(found[0])) };
    });

    await step('fix a mislabel, revert a slip from the activity log, fix it again', async () => {
      const { sample, label } = outcome.fixed;
      const preview = page.getByTestId('sample-preview');
      const labelButton = (name) => preview.locator('[data-testid^="assign-label-"]').filter({ hasText: new RegExp(`· ${name}$`) });
      const wrong = label === '2' ? '5' : '2';
      const entries = preview.locator('[data-testid^="activity-entry-"]');
      const labelWrite = () => page.waitForResponse((r) => isApi(r, 'PATCH', `/api/v1/datasets/${datasetId}/samples/${sample}/`));
      let written = labelWrite();
      await labelButton(wrong).click();
      if (!(await written).ok()) fail('the slip was not saved');
      await page.getByTestId(`sample-tile-${sample}`).click(); // the labeler moved on: back to the sample
      await entries.first().filter({ hasText: `→ ${wrong}` }).waitFor();
      const slip = await entries.first().getAttribute('data-testid');
      const reverted = page.waitForResponse((r) => r.request().method() === 'POST' && /\/activity\/\d+\/revert\/$/.test(new URL(r.url()).pathname));
      await page.getByTestId(slip.replace('activity-entry-', 'activity-revert-')).click();
      if (!(await reverted).ok()) fail('the revert was refused');
      await entries.first().filter({ hasText: `${wrong} →` }).waitFor();
      if ((await entries.first().getAttribute('data-source')) !== 'revert') fail('the newest entry is not the revert');
      // the grid, counts and log refreshed (the revert's own Revert button is usable again)
      const revertEntry = await entries.first().getAttribute('data-testid');
      await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.disabled === false, revertEntry.replace('activity-entry-', 'activity-revert-'));
      await screenshot(page, 'activity-reverted');
      written = labelWrite();
      await labelButton(label).click();
      if (!(await written).ok()) fail('the fix was not saved');
    });

    // --- team labeling ------------------------------------------------------------------------
    await step(`give ${queueSize} unlabeled samples to the annotator`, async () => {
      await page.goto(`${datasetUrl}/tasks`);
      await page.getByTestId('task-create').click();
      await page.getByTestId('task-name').fill('e2e queue');
      await choose(page, 'task-annotators', new RegExp(`^${annotator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`));
      await page.keyboard.press('Escape');
      await page.getByTestId('task-count').fill(String(queueSize));
      const created = page.waitForResponse((r) => isApi(r, 'POST', '/api/v1/labeling-tasks/'));
      await page.getByTestId('task-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`creating the task answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      outcome.task = (await response.json()).id;
      // the new task opens (or shows in the dataset's task list)
      await firstOf({ page: page.waitForURL(new RegExp(`/labeling-tasks/${outcome.task}(/|$)`)), row: page.getByTestId(`task-row-${outcome.task}`).waitFor() });
    });

    const annotatorSide = await newPage(browser);
    current = annotatorSide.page;
    await step('as the annotator, label the assigned queue', async () => {
      const work = annotatorSide.page;
      await logInAs(work, annotator, /\/(labeling|workspaces)\/?$/);
      await work.goto(`${baseUrl}/labeling`);
      await work.getByTestId(`queue-start-${outcome.task}`).click();
      let previous = null;
      for (let i = 0; i < queueSize; i += 1) {
        // the next assignment is open (its own URL) before its label buttons are clicked
        const nextOpen = (url) => /^\/labeling\/assignments\/\d+\/?$/.test(url.pathname) && url.pathname !== previous;
        const backToQueue = () => work.waitForURL((url) => /^\/labeling\/?$/.test(url.pathname)).then(() => work.getByTestId(`queue-start-${outcome.task}`).waitFor());
        const where = i === 0 ? await work.waitForURL(nextOpen).then(() => 'next') : await firstOf({ next: work.waitForURL(nextOpen), queue: backToQueue() });
        if (where === 'queue') {
          log(`after answer ${i} the queue opened, not the next sample: continuing from it`);
          await work.getByTestId(`queue-start-${outcome.task}`).click();
          await work.waitForURL(nextOpen);
        }
        previous = new URL(work.url()).pathname;
        await work.locator('[data-testid="assignment-labeler"]:not([data-status="submitted"]):not([data-status="accepted"])').waitFor();
        await work.getByTestId('assignment-labels').waitFor();
        const submitted = work.waitForResponse((r) => r.request().method() === 'POST' && /\/api\/v1\/labeling-assignments\/\d+\/submit\/$/.test(new URL(r.url()).pathname));
        if (i === 0) await screenshot(work, 'annotator-labeling');
        // a label button other than the first on every other sample, so the answers differ
        const buttons = work.getByTestId('assignment-labels').locator('[data-testid^="assignment-label-"]');
        await buttons.nth(i % 2 === 0 ? 0 : 1).click();
        const answer = await submitted;
        if (!answer.ok()) fail(`submitting answer ${i + 1} answered ${answer.status()}: ${(await answer.text()).slice(0, 300)}`);
        const assignment = await answer.json();
        if (assignment.sample?.id) outcome.task_samples.push(assignment.sample.id);
      }
      await work.goto(`${baseUrl}/labeling`);
      await work.getByTestId(`queue-task-${outcome.task}`).waitFor();
      await screenshot(work, 'annotator-queue-done');
      if (annotatorSide.errors.length) fail(`page errors on the annotator's side: ${annotatorSide.errors.join(' | ')}`);
    });
    current = page;

    await step('as the reviewer, reject one answer and accept the rest', async () => {
      await page.goto(`${baseUrl}/labeling-tasks/${outcome.task}/review`);
      await page.getByTestId('review-table').waitFor();
      const items = page.locator('[data-testid^="review-item-"]');
      await items.first().waitFor();
      const itemIds = await items.evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-testid').split('-').pop())));
      if (itemIds.length !== queueSize) fail(`the review lists ${itemIds.length} items, expected ${queueSize}`);
      const first = itemIds[0];
      await page.getByTestId(`review-reject-${first}`).click();
      await page.getByTestId(`review-comment-input-${first}`).fill('Look again: this digit is not what you picked.');
      const rejected = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/labeling-tasks/${outcome.task}/review/`));
      await page.getByTestId(`review-reject-confirm-${first}`).click();
      if (!(await rejected).ok()) fail('the rejection was refused');
      // the rejected item leaves the waiting list; then select every waiting one
      await page.getByTestId(`review-item-${first}`).waitFor({ state: 'detached' });
      for (const id of itemIds.slice(1)) await page.getByTestId(`review-item-${id}`).waitFor();
      // the rejection's success clears the selection when it lands (after its refetch): select until it holds
      const selectAll = page.getByTestId('review-select-all');
      for (let attempt = 0; !(await selectAll.isChecked()); attempt += 1) {
        if (attempt === 10) fail('selecting every waiting item does not hold');
        await selectAll.click();
        await page.waitForTimeout(500);
      }
      const accepted = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/labeling-tasks/${outcome.task}/review/`));
      await page.getByTestId('review-bulk-accept').click();
      const answer = await accepted;
      if (!answer.ok()) fail(`accepting answered ${answer.status()}: ${(await answer.text()).slice(0, 300)}`);
      await screenshot(page, 'review-done', { fullPage: true });
    });

    await step('build a reviewed-only version', async () => {
      await page.goto(`${datasetUrl}/versions`);
      await page.getByTestId('versions-panel').waitFor();
      await page.getByTestId('version-reviewed-only').check();
      const created = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/datasets/${datasetId}/versions/`));
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() >= 300) fail(`creating the version answered ${response.status()}: ${(await response.text()).slice(0, 300)}`);
      const version = await response.json();
      await page.getByTestId(`version-row-${version.id}`).waitFor();
      if (!version.reviewed_only) fail('the version is not marked reviewed-only');
      await screenshot(page, 'reviewed-only-version', { fullPage: true });
    });

    if (ownerSide.errors.length) fail(`page errors: ${ownerSide.errors.join(' | ')}`);
    await writeFile(path.join(artifacts, 'outcome.json'), JSON.stringify(outcome, null, 2));
    log(`done: ${JSON.stringify(outcome)}`);
    return 0;
  } catch (error) {
    await current.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

run(main);
