#!/usr/bin/env node
// Browser e2e of the foundation slice, driven through the real UI of a live Sampan server:
// log in -> create a workspace -> create a project -> open it -> "Run system check" ->
// watch the job's badge reach `succeeded` without reloading the page.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_ARTIFACTS (screenshot folder, default ./e2e-artifacts), CHROMIUM_PATH (default /usr/bin/chromium),
//      E2E_JOB_TIMEOUT_S (default 90).
// Exit status: 0 when every step passed, 1 with a "FAILED: ..." line otherwise.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, firstOf, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts);
const jobTimeoutMs = Number(process.env.E2E_JOB_TIMEOUT_S || 90) * 1000;
const STEP_TIMEOUT_MS = 20_000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);

  const pageErrors = collectPageErrors(page);
  page.on('console', (message) => {
    // Failed requests are logged with their URL below; the browser's own line for them says less.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      log(`console error: ${message.text()}`);
    }
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !url.pathname.startsWith('/api/')) return;
    const expected = url.pathname === '/api/v1/auth/me/' ? ' (expected before login)' : '';
    log(`${response.request().method()} ${url.pathname} answered ${response.status()}${expected}`);
  });
  let documentLoads = 0;
  page.on('load', () => {
    documentLoads += 1;
  });

  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const workspaceName = `e2e workspace ${suffix}`;
  const projectName = `e2e project ${suffix}`;

  try {
    await step('open the login page', async () => {
      const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('login-form').waitFor();
      await screenshot(page, 'login');
    });

    await step('log in through the form', async () => {
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/?$/), error: page.getByTestId('login-error').waitFor() });
      if (outcome === 'error') fail(`login refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
      await page.getByTestId('create-workspace').waitFor();
      await screenshot(page, 'workspaces');
    });

    const workspaceId = await step(`create workspace "${workspaceName}"`, async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(workspaceName);
      await page.getByTestId('workspace-description-input').fill('Created by frontend/e2e/foundation.mjs');
      await page.getByTestId('workspace-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/\d+\/?$/), error: page.getByTestId('create-workspace-error').waitFor() });
      if (outcome === 'error') fail(`workspace refused: ${(await page.getByTestId('create-workspace-error').innerText()).trim()}`);
      const title = (await page.getByTestId('workspace-title').innerText()).trim();
      if (title !== workspaceName) fail(`workspace page shows "${title}", expected "${workspaceName}"`);
      const id = Number(new URL(page.url()).pathname.split('/').filter(Boolean).pop());
      log(`workspace #${id} created`);
      await screenshot(page, 'workspace');
      return id;
    });

    const projectId = await step(`create project "${projectName}"`, async () => {
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(projectName);
      await page.getByTestId('project-description-input').fill('Runs the system check');
      await page.getByTestId('project-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/projects\/\d+\/?$/), error: page.getByTestId('create-project-error').waitFor() });
      if (outcome === 'error') fail(`project refused: ${(await page.getByTestId('create-project-error').innerText()).trim()}`);
      const id = Number(new URL(page.url()).pathname.split('/').filter(Boolean).pop());
      log(`project #${id} created`);
      return id;
    });

    await step('open the project from the workspace page', async () => {
      await page.goto(`${baseUrl}/workspaces/${workspaceId}`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId(`project-link-${projectId}`).click();
      await page.waitForURL(new RegExp(`/projects/${projectId}/?$`));
      const title = (await page.getByTestId('project-title').innerText()).trim();
      if (title !== projectName) fail(`project page shows "${title}", expected "${projectName}"`);
      await page.getByTestId('tab-jobs').click();
      await page.getByTestId('jobs-panel').waitFor();
      await screenshot(page, 'project');
    });

    const jobId = await step('click "Run system check"', async () => {
      const before = new Set(
        await page.locator('[data-testid^="job-status-"]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid'))),
      );
      const created = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/v1/jobs/',
      );
      created.catch(() => {});
      await page.getByTestId('run-system-check').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/jobs/ answered ${response.status()}: ${await response.text()}`);
      const job = await response.json();
      if (before.has(`job-status-${job.id}`)) fail(`job #${job.id} was already listed before the click`);
      log(`job #${job.id} (${job.kind}) created with status ${job.status}`);
      return job.id;
    });

    const finalStatus = await step(`wait for job #${jobId} to reach succeeded (no reload, ${jobTimeoutMs / 1000}s)`, async () => {
      const loadsBefore = documentLoads;
      const badge = page.getByTestId(`job-status-${jobId}`);
      await badge.waitFor();
      const deadline = Date.now() + jobTimeoutMs;
      let last = '';
      let shotRunning = false;
      for (;;) {
        const status = ((await badge.textContent()) || '').trim().toLowerCase();
        if (status !== last) {
          const progress = await page.getByTestId(`job-progress-${jobId}`).getAttribute('data-value').catch(() => null);
          log(`job #${jobId} status: ${status}${progress !== null ? ` (progress ${progress}%)` : ''}`);
          last = status;
          if (status === 'queued') await screenshot(page, 'job-queued');
        }
        if (status === 'running' && !shotRunning) {
          shotRunning = true;
          await screenshot(page, 'job-running');
        }
        if (TERMINAL.has(status)) break;
        if (Date.now() > deadline) {
          await screenshot(page, 'job-timeout');
          fail(`job #${jobId} still "${status}" after ${jobTimeoutMs / 1000}s (is a worker running? see the workers indicator)`);
        }
        await page.waitForTimeout(250);
      }
      if (documentLoads !== loadsBefore) fail('the page reloaded while waiting; the status must update live');
      return last;
    });

    await step(`check job #${jobId} details`, async () => {
      await page.getByTestId(`job-open-${jobId}`).click();
      const detail = page.getByTestId('job-detail');
      await detail.waitFor();
      await page.getByTestId('job-detail-status').waitFor();
      if (finalStatus !== 'succeeded') {
        const error = await page.getByTestId('job-error').innerText().catch(() => '(no error text shown)');
        await screenshot(page, 'job-detail');
        fail(`job #${jobId} ended "${finalStatus}": ${error.trim()}`);
      }
      await page.getByTestId('job-result').waitFor();
      const sections = await page.locator('[data-testid^="job-result-"]').evaluateAll((nodes) =>
        nodes.map((node) => node.getAttribute('data-testid').replace('job-result-', '')),
      );
      log(`result sections: ${sections.join(', ')}`);
      await screenshot(page, 'job-detail');
      await page.keyboard.press('Escape');
      await detail.waitFor({ state: 'detached' });
    });

    await step('final screenshot of the jobs panel', async () => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByTestId(`job-status-${jobId}`).scrollIntoViewIfNeeded();
      await screenshot(page, 'jobs');
      await page.screenshot({ path: path.join(artifacts, 'jobs.png') });
      log(`screenshot ${path.join(artifacts, 'jobs.png')}`);
    });

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: workspace #${workspaceId}, project #${projectId}, job #${jobId} succeeded`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png') }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

// Waits abandoned when a step fails reject once the browser closes; the step already said why.
process.on('unhandledRejection', () => {});

run(main);
