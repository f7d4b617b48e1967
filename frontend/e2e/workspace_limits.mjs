#!/usr/bin/env node
// Browser check of a workspace's job limits through the real UI of a live Sampan server with a real
// worker: an administrator (staff) who is no member of the workspace finds it on the Users page's
// Workspace limits tab and sets its limit to 1 job at once; a member sees the limit on the workspace's
// Limits tab (and no form); the member queues two long system checks, and the
// second one's job page says it waits for the workspace's limit, in English and in zh-CN (a Chromium
// whose language is zh-CN), where the Limits tab is in Chinese too.
//
// Env: SAMPAN_URL, E2E_ADMIN, E2E_MEMBER, SAMPAN_PASSWORD, E2E_WORKSPACE, E2E_WORKSPACE_NAME, E2E_PROJECT,
// E2E_ARTIFACTS, CHROMIUM_PATH. Prints "[e2e] RESULT {...}" and exits 0, or a "FAILED: ..." line and exits 1.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, isApi, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const admin = process.env.E2E_ADMIN;
const member = process.env.E2E_MEMBER;
const password = process.env.SAMPAN_PASSWORD;
const workspaceId = Number(process.env.E2E_WORKSPACE);
const workspaceName = process.env.E2E_WORKSPACE_NAME || '';
const projectId = Number(process.env.E2E_PROJECT);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });
const CHECK_SECONDS = 120; // the first check runs while the page is read

async function openContext(browser, locale) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  logFailedCalls(page);
  return { context, page, errors: collectPageErrors(page) };
}

/** The workspace's Limits tab: what its table shows. */
async function limitsTab(page) {
  await page.goto(`${baseUrl}/workspaces/${workspaceId}`);
  await page.getByTestId('tab-limits').click();
  await page.getByTestId('limits-panel').waitFor();
  return {
    tab: (await page.getByTestId('tab-limits').innerText()).trim(),
    maxJobs: (await page.getByTestId('limits-max-jobs').innerText()).trim(),
    maxGpuJobs: (await page.getByTestId('limits-max-gpu-jobs').innerText()).trim(),
    running: (await page.getByTestId('limits-running').innerText()).trim(),
    form: await page.getByTestId('limits-form').count(),
    staffOnly: await page.getByTestId('limits-staff-only').count(),
  };
}

/** The Users page's Workspace limits tab, searched for the workspace: its row, then its dialog. */
async function adminLimits(page) {
  await page.goto(`${baseUrl}/users`);
  await page.getByTestId('admin-tab-workspace-limits').click();
  await page.getByTestId('all-limits-search').fill(workspaceName);
  await page.getByTestId(`all-limits-row-${workspaceId}`).waitFor();
  const listed = page.locator('[data-testid^="all-limits-row-"]');
  for (let i = 0; i < 40 && (await listed.count()) > 1; i += 1) await page.waitForTimeout(250); // the search applies
  const rows = await listed.count();
  const row = (await page.getByTestId(`all-limits-jobs-${workspaceId}`).innerText()).trim();
  await page.getByTestId(`all-limits-edit-${workspaceId}`).click();
  await page.getByTestId('limits-panel').waitFor();
  return {
    row,
    rows,
    maxJobs: (await page.getByTestId('limits-max-jobs').innerText()).trim(),
    form: await page.getByTestId('limits-form').count(),
  };
}

/** A system check queued through the API with the page's session (as the UI's button does). */
async function queueCheck(context, page) {
  const token = (await context.cookies()).find((cookie) => cookie.name === 'csrftoken')?.value ?? '';
  const response = await page.request.post(`${baseUrl}/api/v1/jobs/`, {
    data: { workspace: workspaceId, project: projectId, kind: 'system.check', params: { seconds: CHECK_SECONDS } },
    headers: { 'X-CSRFToken': token, Referer: `${baseUrl}/workspaces/${workspaceId}` },
  });
  if (response.status() !== 201) fail(`POST /api/v1/jobs/ answered ${response.status()}: ${await response.text()}`);
  return (await response.json()).id;
}

/** The job page's queue state once it says the job waits for the workspace limit. */
async function waitingForLimit(page, jobId, name) {
  await page.goto(`${baseUrl}/jobs/${jobId}`);
  const state = page.getByTestId('job-queue-state');
  for (let i = 0; i < 120; i += 1) {
    if ((await state.count()) && (await state.getAttribute('data-reason')) === 'workspace_limit') {
      const shown = {
        reason: (await page.getByTestId('job-queue-reason').innerText()).trim(),
        position: (await page.getByTestId('job-queue-position').innerText()).trim(),
      };
      await screenshot(page, name);
      return shown;
    }
    await page.waitForTimeout(500);
  }
  await screenshot(page, `${name}-timeout`);
  const seen = (await state.count()) ? await state.getAttribute('data-reason') : 'no queue state';
  fail(`job #${jobId} never showed the workspace_limit reason (last: ${seen})`);
}

async function main() {
  if (!admin || !member || !password || !workspaceId || !projectId) {
    fail('E2E_ADMIN, E2E_MEMBER, SAMPAN_PASSWORD, E2E_WORKSPACE and E2E_PROJECT must be set');
  }
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const result = {};
  const errors = [];
  try {
    const staff = await openContext(browser, 'en-US');
    errors.push(staff.errors);
    await step("the administrator, no member, sets the limit to 1 job on the Users page's Workspace limits", async () => {
      await logIn(staff.page, baseUrl, admin, password);
      await staff.page.goto(`${baseUrl}/workspaces/${workspaceId}`);  // not a member: not its page
      await staff.page.getByTestId('not-found').waitFor();
      result.adminWorkspacePage = 'not found';
      result.adminBefore = await adminLimits(staff.page);
      await staff.page.getByTestId('limits-max-jobs-input').fill('1');
      const saved = staff.page.waitForResponse((r) => isApi(r, 'PUT', `/api/v1/workspaces/${workspaceId}/limits/`));
      await staff.page.getByTestId('limits-save').click();
      const response = await saved;
      result.saveStatus = response.status();
      result.saved = await response.json();
      await staff.page.getByTestId('limits-max-jobs').filter({ hasText: /^1$/ }).waitFor();
      result.adminAfter = (await staff.page.getByTestId('limits-max-jobs').innerText()).trim();
      await screenshot(staff.page, 'admin-limits');
      await staff.page.keyboard.press('Escape');  // the dialog closes; the list shows the new limit
      await staff.page.getByTestId('limits-panel').waitFor({ state: 'detached' });
      await staff.page.getByTestId(`all-limits-jobs-${workspaceId}`).filter({ hasText: /^0 \/ 1$/ }).waitFor();
      result.adminRowAfter = (await staff.page.getByTestId(`all-limits-jobs-${workspaceId}`).innerText()).trim();
      await screenshot(staff.page, 'admin-all-limits');
      log(`limit saved: ${JSON.stringify(result.saved)}`);
    });
    await staff.context.close();

    const en = await openContext(browser, 'en-US');
    errors.push(en.errors);
    await step('a member sees the limit, without a form', async () => {
      await logIn(en.page, baseUrl, member, password);
      result.member = await limitsTab(en.page);
      await screenshot(en.page, 'member-limits');
    });
    await step('the member queues two checks; the second waits for the workspace limit', async () => {
      result.first = await queueCheck(en.context, en.page);
      result.second = await queueCheck(en.context, en.page);
      log(`queued jobs #${result.first} and #${result.second}`);
      result.en = await waitingForLimit(en.page, result.second, 'job-waits-en');
      log(`en: ${result.en.reason}`);
    });
    await en.context.close();

    const zh = await openContext(browser, 'zh-CN');
    errors.push(zh.errors);
    await step('in zh-CN: the Limits tab and the waiting job page', async () => {
      await logIn(zh.page, baseUrl, member, password);
      result.zhLimits = await limitsTab(zh.page);
      await screenshot(zh.page, 'member-limits-zh');
      result.zh = await waitingForLimit(zh.page, result.second, 'job-waits-zh');
      result.zhLang = await zh.page.evaluate(() => document.documentElement.lang);
      log(`zh-CN: ${result.zh.reason}`);
    });
    await zh.context.close();

    const problems = errors.flat();
    if (problems.length) fail(`page errors: ${problems.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
