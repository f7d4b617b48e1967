#!/usr/bin/env node
// Browser e2e of the whole EasyDL flow in Simplified Chinese, driven through the real UI of a live
// Sampan server in a Chromium whose language is zh-CN (navigator.language and Accept-Language):
// the login page and every page after it are in Chinese -> workspace, project, image classification
// dataset -> drop a zip whose class folders are 零 一 二 … 九 -> the labels keep the zip's order and
// the keyboard keys follow it (1-9, then 0 for the tenth) -> label the unlabeled images by those keys
// -> statistics name every class -> a dataset version -> train with the fast preset -> the model
// version's evaluation report -> "Try it" on the model version (no deployment, no key) -> deploy as
// a hosted API, one call from the deployment's try-it panel (signed in, no key) and one more after a
// reload of that page -> the usage page opened directly by URL draws both charts (bars, latency line).
// No page error, console error, unexpected failed API call or CSP violation is allowed anywhere.
//
// Then a screenshot tour: the main pages at 1440x900 and 1024x700, in zh-CN and (after switching the
// language in the user menu, saved to the account) in English, written to
// E2E_SCREENSHOTS/<lang>/<width>/<page>.png. Each page in zh-CN must show Chinese UI text and none of
// a list of known English UI words, and no page may scroll sideways.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_ZIP (folders 零 … 九 of digit images plus unlabeled files at the root),
//      E2E_TRUTH (JSON {file name of an unlabeled image: its class}), E2E_CLASSES (JSON [class names
//      in the zip's order]), E2E_IMAGE (a digit image for the try-it panels), E2E_EPOCHS (default 2),
//      E2E_ARTIFACTS (step screenshots, summary.json), E2E_SCREENSHOTS (the tour; default
//      E2E_ARTIFACTS/screenshots), E2E_TOUR (default 1; 0 skips the tour), CHROMIUM_PATH,
//      E2E_TRAIN_TIMEOUT_S (default 600).
// Exit status: 0 when every step passed, 1 with "[e2e] FAILED: ..." (and failure.png) otherwise.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, firstOf, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const zipPath = process.env.E2E_ZIP;
const imagePath = process.env.E2E_IMAGE;
const truth = JSON.parse(process.env.E2E_TRUTH || '{}');
const classes = JSON.parse(process.env.E2E_CLASSES || '["零","一","二","三","四","五","六","七","八","九"]');
const epochs = Number(process.env.E2E_EPOCHS || 2);
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts/zh-cn');
const shotsRoot = path.resolve(process.env.E2E_SCREENSHOTS || path.join(artifacts, 'screenshots'));
const tourEnabled = (process.env.E2E_TOUR ?? '1') !== '0';
const trainTimeoutMs = Number(process.env.E2E_TRAIN_TIMEOUT_S || 600) * 1000;
const screenshot = screenshots(artifacts);
const STEP_TIMEOUT_MS = 20_000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
];
const CJK = /[\u3400-\u9fff]/;
// The keys the labeler must show for the labels in the user's order: 1-9, then 0.
const EXPECTED_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'];
// English UI words that must not be seen on the main pages in zh-CN (today's English UI; matched as
// whole words, case-sensitive, in the page's visible text).
const ENGLISH_UI = [
  'Workspaces', 'Workspace', 'Projects', 'Datasets', 'Dataset', 'Jobs', 'Studies', 'AutoML studies', 'API tokens', 'API docs',
  'Log out', 'Sign in', 'Password', 'Username', 'Create', 'Cancel', 'Save', 'Delete', 'Members', 'Import', 'Label', 'Labels',
  'Statistics', 'Versions', 'Train', 'Training', 'Unlabeled', 'Undo', 'Search', 'Advanced settings', 'Start training',
  'Preset', 'Accuracy', 'Confusion matrix', 'Precision', 'Recall', 'Deploy', 'Hosted API', 'Overview', 'Keys', 'Usage',
  'Try it', 'Code', 'Calls', 'Errors', 'Error rate', 'Latency', 'Calls and errors', 'Live', 'Stop', 'Start', 'History',
  'Model', 'Models', 'Deployments', 'Status', 'Created', 'New study', 'No calls', 'Users', 'Invite', 'Admin', 'active',
  'succeeded', 'running', 'queued', 'failed', 'samples', 'images', 'updated', 'Loading', 'Back',
  // shown in capitals by CSS (innerText is the text as drawn)
  'WORKERS ONLINE', 'WORKER ONLINE', 'NO WORKERS', 'TEST ACCURACY', 'ACCURACY', 'SERVING', 'CALLS', 'ERRORS', 'ERROR RATE',
  'IMAGE CLASSIFICATION', 'PROGRESS', 'MACRO', 'WEIGHTED',
];
// Every Latin word seen on each page in zh-CN (beside the user's data), for a reviewer: summary.json.
const latinWords = {};
const ENGLISH_UI_RE = new RegExp(`(?<![A-Za-z_\\-./])(${ENGLISH_UI.map((word) => word.replace(/ /g, '\\s+')).join('|')})(?![A-Za-z_\\-./])`, 'g');

function idFromUrl(page) {
  return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
}

function isApi(response, method, pathname) {
  return response.request().method() === method && new URL(response.url()).pathname === pathname;
}

/** Picks the option at `index` (or whose text matches `name`) in a Mantine Select found by test id. */
async function choose(page, testId, { name, index = 0 } = {}) {
  await page.getByTestId(testId).click();
  const options = page.getByRole('option', name ? { name } : {});
  await options.nth(name ? 0 : index).click();
}

/** The key a label-assign button shows: its data-key/data-shortcut, a <kbd>, or the "N · " prefix. */
async function shownKey(button) {
  for (const attribute of ['data-key', 'data-shortcut', 'aria-keyshortcuts']) {
    const value = await button.getAttribute(attribute);
    if (value) return value.trim().toLowerCase();
  }
  const kbd = button.locator('kbd');
  if (await kbd.count()) return (await kbd.first().innerText()).trim().toLowerCase();
  const match = /^\s*([0-9a-z])\s*[·:.)]/i.exec(await button.innerText());
  return match ? match[1].toLowerCase() : null;
}

/** The label buttons of the labeler's preview, in the order shown: [{ id, name, key }]. */
async function labelButtons(page) {
  const buttons = page.locator('[data-testid^="assign-label-"]');
  const found = [];
  for (let index = 0; index < (await buttons.count()); index += 1) {
    const button = buttons.nth(index);
    const id = Number((await button.getAttribute('data-testid')).replace('assign-label-', ''));
    if (!Number.isInteger(id)) continue;
    const text = (await button.innerText()).trim();
    const name = classes.find((candidate) => text.endsWith(candidate) || text.includes(` ${candidate}`) || text === candidate) ?? text;
    found.push({ id, name, key: await shownKey(button) });
  }
  return found;
}

/** Visible text of the page (header, navigation and main content; hidden elements excluded). */
function visibleText(page) {
  return page.evaluate(() => document.body.innerText);
}

/** Fails unless the page shows Chinese UI text (beyond the user's own data) and no known English UI word. */
async function assertChinese(page, what, dataStrings) {
  const text = await visibleText(page);
  let stripped = text;
  for (const data of dataStrings) stripped = stripped.split(data).join(' ');
  latinWords[what] = [...new Set(stripped.match(/[A-Za-z][A-Za-z'-]{2,}/g) ?? [])].sort();
  const chinese = (stripped.match(/[\u3400-\u9fff]/g) ?? []).length;
  if (chinese < 4) fail(`${what}: no Chinese UI text shown (${chinese} CJK characters beside the user's data): "${text.slice(0, 200)}"`);
  const leaks = [...new Set([...stripped.matchAll(ENGLISH_UI_RE)].map((match) => match[1].replace(/\s+/g, ' ')))];
  if (leaks.length) fail(`${what}: English UI words shown in zh-CN: ${leaks.join(', ')}`);
  const lang = await page.evaluate(() => document.documentElement.lang);
  if (lang !== 'zh-CN') fail(`${what}: <html lang="${lang}">, expected zh-CN`);
}

/**
 * Language problems (a page not in Chinese, an English UI word) are collected, not thrown: the flow
 * goes on, so one missed string does not hide the rest of the proof or the screenshots; the run
 * fails at the end with every problem listed.
 */
const languageProblems = [];
async function checkChinese(page, what, dataStrings) {
  try {
    await assertChinese(page, what, dataStrings);
  } catch (error) {
    languageProblems.push(error.message);
    log(`LANGUAGE: ${error.message}`);
  }
}

/** Fails when the page scrolls sideways (the main pages must work down to 1024 px wide). */
async function assertNoSidewaysScroll(page, what) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  if (scrollWidth > innerWidth + 1) fail(`${what}: the page is ${scrollWidth}px wide in a ${innerWidth}px window (horizontal scroll)`);
}

/** Every chart series drawn: bar rectangles and line curves with a non-empty SVG path. */
async function chartSeries(chart) {
  return chart.evaluate((node) => ({
    bars: [...node.querySelectorAll('.recharts-bar-rectangle path, path.recharts-rectangle')].filter((p) => (p.getAttribute('d') || '').trim().length > 0).length,
    lines: [...node.querySelectorAll('path.recharts-line-curve, path.recharts-curve')].filter((p) => /[LCM]/.test(p.getAttribute('d') || '') && (p.getAttribute('d') || '').trim().length > 0).length,
    dots: node.querySelectorAll('.recharts-line-dots circle, .recharts-line-dot, circle.recharts-dot').length,
    ...(() => {
      // Mantine's legend items (class mantine-<Chart>-legendItem) or recharts' own.
      const items = [...node.querySelectorAll('[class*="legendItem"], .recharts-legend-item')].filter((item) =>
        [...item.classList].some((name) => name.endsWith('-legendItem') || name === 'recharts-legend-item'),
      );
      return { legendItems: items.length, legendRows: new Set(items.map((item) => Math.round(item.getBoundingClientRect().top))).size };
    })(),
  }));
}

/** "Try it" on a model version's page (EasyDL's 校验模型): no deployment, no key; the top label. */
async function tryModelVersion(page, modelVersionId) {
  const panel = page.getByTestId('model-version-try');
  const opener = page.getByTestId('model-version-try-open');
  if ((await opener.count()) && !(await panel.isVisible().catch(() => false))) await opener.click();
  await panel.waitFor();
  await panel.locator('input[type="file"]').setInputFiles(imagePath);
  const called = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname.startsWith(`/api/v1/model-versions/${modelVersionId}/`));
  called.catch(() => {});
  await panel.getByTestId('try-submit').click();
  const response = await called;
  if (response.status() !== 200) fail(`the model version's try-it answered ${response.status()}: ${await response.text()}`);
  const headers = await response.request().allHeaders();
  if (headers.authorization) fail('the model version\'s try-it sent an API key: it must need none');
  await panel.getByTestId('try-result').waitFor();
  const top = await panel.getByTestId('try-label-0').getAttribute('data-label');
  if (!classes.includes(top)) fail(`the model version's try-it answered "${top}", not one of the classes`);
  return top;
}

/** The deployment's own "Try it" on its page: signed in, no key; answered by the model it serves. */
async function tryDeployment(page, deploymentId) {
  await page.locator('input[type="file"]').first().setInputFiles(imagePath);
  await page.getByTestId('try-preview').waitFor();
  const called = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/try/`));
  called.catch(() => {});
  await page.getByTestId('try-submit').click();
  const response = await called;
  if (response.status() !== 200) fail(`the deployment's try-it answered ${response.status()}: ${await response.text()}`);
  if ((await response.request().allHeaders()).authorization) fail('the deployment\'s try-it sent a key: signed in, it needs none');
  await page.getByTestId('try-result').waitFor();
  const top = await page.getByTestId('try-label-0').getAttribute('data-label');
  if (!classes.includes(top)) fail(`the deployment's try-it answered "${top}", not one of the classes`);
  return top;
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (!zipPath || !imagePath) fail('E2E_ZIP and E2E_IMAGE must be set');
  const zipBytes = await readFile(zipPath).catch((error) => fail(`cannot read E2E_ZIP ${zipPath}: ${error.message}`));
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, zip ${zipPath} (${zipBytes.length} bytes), classes ${classes.join(' ')}, artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: SIZES[0], locale: 'zh-CN', timezoneId: 'Asia/Shanghai' });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);

  // Page errors and CSP violations (lib.mjs), console errors, and API calls that failed unexpectedly.
  const pageErrors = collectPageErrors(page);
  let signedIn = false;
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (/Content Security Policy/i.test(text)) return; // collectPageErrors has it
    // Chromium logs every 4xx/5xx answer as "Failed to load resource"; the response handler judges those.
    if (text.startsWith('Failed to load resource')) return;
    pageErrors.push(`console error: ${text}`);
    log(`console error: ${text}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !response.url().startsWith(baseUrl)) return;
    const expected = !signedIn && url.pathname === '/api/v1/auth/me/' && [401, 403].includes(response.status());
    log(`${response.request().method()} ${url.pathname}${url.search} answered ${response.status()}${expected ? ' (expected before login)' : ''}`);
    if (!expected) pageErrors.push(`${response.request().method()} ${url.pathname} answered ${response.status()}`);
  });

  // What a user would call them (the server is a fresh one: the test's database, make screenshot's home).
  const names = { workspace: '手写数字', project: '数字识别', dataset: '手写数字图片', deployment: 'shouxie-shuzi' };
  const dataStrings = [...Object.values(names), ...classes, username];
  const summary = { names, classes };

  try {
    await step('the login page is in Chinese (browser language zh-CN); sign in', async () => {
      const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('login-submit').waitFor();
      const heading = (await page.locator('h1, h2, h3').allInnerTexts()).join(' | ');
      const submit = (await page.getByTestId('login-submit').innerText()).trim();
      if (!CJK.test(heading + submit)) languageProblems.push(`the login page is not in Chinese: headings "${heading}", button "${submit}"`);
      await checkChinese(page, 'the login page', dataStrings);
      const switchText = await page.getByTestId('language-switch').innerText();
      if (!switchText.includes('简体中文')) fail(`the login page's language switch shows "${switchText}"`);
      await screenshot(page, 'login');
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/?$/), error: page.getByTestId('login-error').waitFor() });
      if (outcome === 'error') fail(`login refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
      signedIn = true;
      await page.getByTestId('create-workspace').waitFor();
      const title = (await page.locator('main h1, main h2').first().innerText()).trim();
      if (!CJK.test(title)) languageProblems.push(`the workspaces page's heading is "${title}", not Chinese`);
      await checkChinese(page, 'the workspaces page', dataStrings);
      log(`signed in; the workspaces page's heading: "${title}"`);
    });

    const workspaceId = await step('create a workspace', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(names.workspace);
      await page.getByTestId('workspace-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/\d+\/?$/), error: page.getByTestId('create-workspace-error').waitFor() });
      if (outcome === 'error') fail(`workspace refused: ${(await page.getByTestId('create-workspace-error').innerText()).trim()}`);
      await page.getByTestId('create-project').waitFor();
      await checkChinese(page, 'the workspace page', dataStrings);
      return idFromUrl(page);
    });

    const projectId = await step('create a project', async () => {
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(names.project);
      await page.getByTestId('project-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/projects\/\d+\/?$/), error: page.getByTestId('create-project-error').waitFor() });
      if (outcome === 'error') fail(`project refused: ${(await page.getByTestId('create-project-error').innerText()).trim()}`);
      await page.getByTestId('create-dataset').waitFor();
      await checkChinese(page, 'the project page', dataStrings);
      return idFromUrl(page);
    });

    const datasetId = await step('create an image classification dataset', async () => {
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(names.dataset);
      await page.getByTestId('dataset-create-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/datasets\/\d+\/import\/?$/), error: page.getByTestId('create-dataset-error').waitFor() });
      if (outcome === 'error') fail(`dataset refused: ${(await page.getByTestId('create-dataset-error').innerText()).trim()}`);
      await page.getByTestId('import-dropzone').waitFor();
      await checkChinese(page, 'the import page', dataStrings);
      return idFromUrl(page);
    });
    log(`workspace #${workspaceId}, project #${projectId}, dataset #${datasetId}`);
    Object.assign(summary, { workspace: workspaceId, project: projectId, dataset: datasetId });

    const imported = await step(`drop ${path.basename(zipPath)} (class folders ${classes.join(' ')}) on the import drop zone`, async () => {
      const dropzone = page.getByTestId('import-dropzone');
      const created = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/datasets/${datasetId}/imports/`), { timeout: 60_000 });
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
      await page.getByTestId(`import-status-${batch.id}`).waitFor();
      // The badge's text is translated: the imported count appears when the job has succeeded.
      const counted = page.getByTestId(`import-imported-${batch.id}`);
      const outcome = await firstOf({
        ok: page.waitForFunction((id) => Number(document.querySelector(`[data-testid="import-imported-${id}"]`)?.textContent) > 0, batch.id, { timeout: 120_000 }),
        error: page.getByTestId(`import-error-${batch.id}`).waitFor({ timeout: 120_000 }),
      });
      if (outcome === 'error') fail(`import #${batch.id} failed: ${await page.getByTestId(`import-error-${batch.id}`).innerText()}`);
      const count = Number(await counted.innerText());
      await checkChinese(page, 'the import report', dataStrings);
      await screenshot(page, 'import-done');
      log(`import #${batch.id}: ${count} images`);
      return count;
    });

    await step('the labels keep the zip\'s order and the keys follow it (1-9, then 0 for the tenth)', async () => {
      await page.getByTestId('tab-label').click();
      await page.getByTestId('labeling-progress').waitFor();
      await page.waitForFunction(
        (expected) => Number(document.querySelector('[data-testid="labeling-progress"]')?.getAttribute('data-total')) === expected,
        imported,
      );
      await page.locator('[data-testid^="sample-tile-"]').first().click();
      await page.getByTestId('sample-preview').waitFor();
      const buttons = await labelButtons(page);
      summary.labels = buttons;
      log(`labels shown: ${buttons.map((button) => `${button.key ?? '–'}=${button.name}`).join(' ')}`);
      const order = buttons.map((button) => button.name);
      if (order.join(' ') !== classes.join(' ')) fail(`the labels are shown in the order ${order.join(' ')}, the zip's order is ${classes.join(' ')}`);
      const keys = buttons.map((button) => button.key);
      if (keys.join(' ') !== EXPECTED_KEYS.join(' ')) {
        fail(`the keys shown are ${buttons.map((b) => `${b.name}=${b.key ?? 'none'}`).join(' ')}; expected ${classes.map((c, i) => `${c}=${EXPECTED_KEYS[i]}`).join(' ')}`);
      }
      log(`key of ${classes[0]}: ${keys[0]}, key of the tenth label ${classes[9]}: ${keys[9]}`);
      await checkChinese(page, 'the labeler', dataStrings);
    });

    await step(`label the ${Object.keys(truth).length} unlabeled images with the keys shown`, async () => {
      const buttons = summary.labels;
      await choose(page, 'labeling-filter', { index: 1 }); // all, unlabeled, labeled
      await page.waitForFunction(() => {
        const tiles = [...document.querySelectorAll('[data-testid^="sample-tile-"]')];
        return tiles.length > 0 && tiles.every((tile) => tile.getAttribute('data-label') === '');
      });
      const before = Number(await page.getByTestId('labeling-progress').getAttribute('data-labeled'));
      const tiles = page.locator('[data-testid^="sample-tile-"]');
      const unlabeled = await tiles.count();
      if (unlabeled !== Object.keys(truth).length) fail(`the unlabeled view shows ${unlabeled} images, the zip has ${Object.keys(truth).length}`);
      const ids = [];
      for (let index = 0; index < unlabeled; index += 1) ids.push(Number((await tiles.nth(index).getAttribute('data-testid')).replace('sample-tile-', '')));
      await tiles.first().click();
      await screenshot(page, 'labeler');
      const used = [];
      for (const id of ids) {
        await page.waitForFunction((testId) => document.querySelector('[data-testid^="sample-tile-"][data-current]')?.getAttribute('data-testid') === testId, `sample-tile-${id}`);
        const name = (await page.getByTestId('sample-preview-name').innerText()).trim();
        const expected = truth[name];
        if (!expected) fail(`the preview names "${name}", not one of the unlabeled files ${Object.keys(truth).join(', ')}`);
        const { key } = buttons.find((button) => button.name === expected);
        const saved = page.waitForResponse((response) => isApi(response, 'PATCH', `/api/v1/datasets/${datasetId}/samples/${id}/`));
        saved.catch(() => {});
        await page.keyboard.press(key);
        const response = await saved;
        if (response.status() !== 200) fail(`labeling sample ${id} answered ${response.status()}: ${await response.text()}`);
        const body = await response.json();
        if (body.label_name !== expected) fail(`key ${key} labeled ${name} "${body.label_name}", expected "${expected}"`);
        log(`key ${key}: ${name} -> ${body.label_name}`);
        used.push(`${key}=${body.label_name}`);
        await page.waitForFunction((testId) => document.querySelector(`[data-testid="${testId}"]`)?.getAttribute('data-label') !== '', `sample-tile-${id}`).catch(() => {});
      }
      await page.waitForFunction(
        (expected) => Number(document.querySelector('[data-testid="labeling-progress"]')?.getAttribute('data-labeled')) === expected,
        before + ids.length,
      );
      summary.keys_used = used;
      await screenshot(page, 'labeled');
    });

    await step('the statistics chart names every class', async () => {
      await page.getByTestId('tab-statistics').click();
      const chart = page.getByTestId('class-counts-chart');
      await chart.locator('.recharts-bar-rectangle').first().waitFor();
      await page.waitForTimeout(300);
      const ticks = await chart.locator('.recharts-cartesian-axis-tick-value, .recharts-cartesian-axis-tick text').evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
      const missing = classes.filter((name) => !ticks.some((tick) => tick.trim() === name));
      if (missing.length) fail(`the class-count chart drops ${missing.join(' ')} (ticks: ${ticks.join(' ')})`);
      await checkChinese(page, 'the statistics page', dataStrings);
      await screenshot(page, 'statistics');
    });

    const versionName = await step('create a dataset version', async () => {
      await page.getByTestId('tab-versions').click();
      await page.getByTestId('version-seed').fill('7');
      const created = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/datasets/${datasetId}/versions/`));
      created.catch(() => {});
      await page.getByTestId('version-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST versions answered ${response.status()}: ${await response.text()}`);
      const version = await response.json();
      await page.getByTestId(`version-counts-${version.id}`).waitFor();
      await checkChinese(page, 'the versions page', dataStrings);
      return version.name;
    });

    const jobId = await step(`train with the fast preset (${epochs} epochs)`, async () => {
      await page.getByTestId('tab-train').click();
      await page.getByTestId('training-form').waitFor();
      const selected = await page.getByTestId('training-version-select').inputValue();
      if (!selected.startsWith(versionName)) fail(`the training form picked "${selected}", expected ${versionName}`);
      await page.getByTestId('preset-card-fast').click();
      await checkChinese(page, 'the training form', dataStrings);
      await screenshot(page, 'train-form');
      await page.getByTestId('advanced-settings-toggle').click();
      await page.getByTestId('param-epochs').fill(String(epochs));
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/training-jobs/'));
      created.catch(() => {});
      await page.getByTestId('training-start').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/training-jobs/ answered ${response.status()}: ${await response.text()}`);
      const job = await response.json();
      await page.waitForURL(new RegExp(`/jobs/${job.id}/?$`));
      await page.getByTestId('training-monitor').waitFor();
      return job.id;
    });

    const modelVersionId = await step(`job #${jobId} succeeds; open the model version's evaluation report`, async () => {
      const badge = page.getByTestId('job-detail-status');
      await page
        .waitForFunction((terminal) => terminal.includes(document.querySelector('[data-testid="job-detail-status"]')?.getAttribute('data-status')), [...TERMINAL], {
          timeout: trainTimeoutMs,
          polling: 500,
        })
        .catch((error) => fail(`job #${jobId} did not finish in ${trainTimeoutMs / 1000}s (${error.message.split('\n')[0]})`));
      const status = await badge.getAttribute('data-status');
      await checkChinese(page, 'the training job page', dataStrings);
      await screenshot(page, 'training-done');
      if (status !== 'succeeded') fail(`job #${jobId} ended ${status}: ${await page.getByTestId('job-error').innerText().catch(() => '')}`);
      await page.getByTestId('training-model-link').click();
      await page.waitForURL(/\/model-versions\/\d+\/?$/);
      await page.getByTestId('eval-accuracy').waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
      await checkChinese(page, 'the evaluation report', dataStrings);
      await screenshot(page, 'evaluation');
      return idFromUrl(page);
    });
    summary.model_version = modelVersionId;

    await step('try the model version before deploying it', async () => {
      const deploymentsBefore = await page.evaluate(async () => (await (await fetch('/api/v1/deployments/')).json()).count ?? null);
      const top = await tryModelVersion(page, modelVersionId);
      const deploymentsAfter = await page.evaluate(async () => (await (await fetch('/api/v1/deployments/')).json()).count ?? null);
      if (deploymentsBefore !== deploymentsAfter) fail(`trying the model version created a deployment (${deploymentsBefore} -> ${deploymentsAfter})`);
      await checkChinese(page, 'the model version\'s try-it', dataStrings);
      await screenshot(page, 'model-version-try');
      log(`the model version answered "${top}"`);
      summary.model_version_try = top;
    });

    const deploymentId = await step('deploy it as a hosted API', async () => {
      await page.getByTestId('deploy-hosted').click();
      await page.getByTestId('deployment-name-input').fill(names.deployment);
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/deployments/'));
      created.catch(() => {});
      await page.getByTestId('deployment-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/deployments/ answered ${response.status()}: ${await response.text()}`);
      const deployment = await response.json();
      await page.waitForURL(new RegExp(`/deployments/${deployment.id}(/[a-z]+)?/?$`));
      await page.getByTestId('deployment-name').waitFor();
      await checkChinese(page, 'the new deployment\'s page', dataStrings);
      return deployment.id;
    });
    summary.deployment = deploymentId;

    await step('one call from the deployment\'s try-it panel (signed in: no key needed)', async () => {
      await page.getByTestId('deployment-tab-try').click();
      await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
      await tryDeployment(page, deploymentId);
      await checkChinese(page, 'the deployment\'s try-it', dataStrings);
      await screenshot(page, 'deployment-try');
    });

    await step('the deployment\'s try-it still works after a reload', async () => {
      await page.goto(`${baseUrl}/deployments/${deploymentId}/try`, { waitUntil: 'domcontentloaded' });
      await tryDeployment(page, deploymentId);
    });

    await step('open the usage page directly by URL: both charts draw their series', async () => {
      await page.goto(`${baseUrl}/deployments/${deploymentId}/usage`, { waitUntil: 'domcontentloaded' });
      const totals = page.getByTestId('usage-totals');
      await totals.waitFor();
      // Usage is flushed by the web process about every second; the panel refreshes live.
      await page
        .waitForFunction(() => Number(document.querySelector('[data-testid="usage-totals"]')?.getAttribute('data-calls')) >= 2, null, { timeout: 45_000 })
        .catch(async () => fail(`usage counts ${await totals.getAttribute('data-calls')} calls after 45s; the try-it panel made 2`));
      const calls = page.getByTestId('usage-calls-chart');
      const latency = page.getByTestId('usage-latency-chart');
      await calls.locator('.recharts-surface').first().waitFor();
      await latency.locator('.recharts-surface').first().waitFor();
      await page.waitForTimeout(800); // the charts' entry animation
      const bars = await chartSeries(calls);
      const lines = await chartSeries(latency);
      log(`calls chart ${JSON.stringify(bars)}; latency chart ${JSON.stringify(lines)}`);
      if (bars.bars < 1) fail(`the calls chart drew no bar (${JSON.stringify(bars)})`);
      if (lines.lines < 1 && lines.dots < 1) fail(`the latency chart drew no line (${JSON.stringify(lines)})`);
      for (const [name, chart] of [['calls', bars], ['latency', lines]]) {
        if (chart.legendItems > 1 && chart.legendRows === chart.legendItems) fail(`the ${name} chart's legend is stacked (${chart.legendItems} items on ${chart.legendRows} rows): the charts' CSS is missing on a direct load`);
      }
      await checkChinese(page, 'the usage page', dataStrings);
      await screenshot(page, 'usage-direct-load');
      summary.usage = { calls: bars, latency: lines };
    });

    if (pageErrors.length) fail(`errors in the page: ${pageErrors.join(' | ')}`);

    if (tourEnabled) {
      const ids = { workspaceId, projectId, datasetId, modelVersionId, deploymentId, jobId };
      const zh = await tour(page, 'zh-CN', ids, dataStrings);
      await step('switch the language to English in the user menu (saved to the account)', async () => {
        await page.goto(`${baseUrl}/workspaces`, { waitUntil: 'domcontentloaded' });
        await page.getByTestId('user-menu').click();
        const saved = page.waitForResponse((response) => isApi(response, 'PATCH', '/api/v1/auth/me/'));
        saved.catch(() => {});
        await page.getByTestId('language-switch').getByText('English').click();
        const response = await saved;
        if (response.status() !== 200 || response.request().postDataJSON().language !== 'en') fail(`PATCH /auth/me/ answered ${response.status()} for ${response.request().postData()}`);
        await page.keyboard.press('Escape');
        await page.reload({ waitUntil: 'domcontentloaded' });
        await page.getByTestId('create-workspace').waitFor();
        const lang = await page.evaluate(() => document.documentElement.lang);
        if (lang !== 'en') fail(`after switching to English and reloading, <html lang="${lang}">`);
      });
      const en = await tour(page, 'en', ids, dataStrings);
      summary.screenshots = [...zh.written, ...en.written];
      summary.tour_problems = [...zh.problems, ...en.problems];
      if (pageErrors.length) fail(`errors in the page during the screenshot tour: ${pageErrors.join(' | ')}`);
    }
    const problems = [...languageProblems, ...(summary.tour_problems ?? [])];
    if (problems.length) fail(`${problems.length} problem(s) (every screenshot was taken): ${problems.join(' | ')}`);

    summary.latin_words = latinWords;
    await writeFile(path.join(artifacts, 'summary.json'), JSON.stringify(summary, null, 2));
    log(`PASSED: dataset #${datasetId}, job #${jobId}, model version #${modelVersionId}, deployment #${deploymentId}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    summary.latin_words = latinWords;
    summary.language_problems = languageProblems;
    await writeFile(path.join(artifacts, 'summary.json'), JSON.stringify(summary, null, 2)).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }

  /** The main pages at each size in `lang`, each checked and written to <shots>/<lang>/<width>/<page>.png. */
  async function tour(tab, lang, ids, data) {
    const pages = [
      { name: 'workspaces', url: '/workspaces', ready: '[data-testid="create-workspace"]' },
      { name: 'workspace', url: `/workspaces/${ids.workspaceId}`, ready: '[data-testid="create-project"]' },
      { name: 'project', url: `/projects/${ids.projectId}`, ready: '[data-testid="create-dataset"]' },
      {
        name: 'labeling',
        url: `/datasets/${ids.datasetId}/label`,
        ready: '[data-testid^="sample-tile-"]',
        then: async () => {
          await tab.locator('[data-testid^="sample-tile-"]').first().click();
          await tab.getByTestId('sample-preview-image').waitFor();
        },
      },
      { name: 'statistics', url: `/datasets/${ids.datasetId}/statistics`, ready: '[data-testid="class-counts-chart"] .recharts-bar-rectangle' },
      { name: 'training-form', url: `/datasets/${ids.datasetId}/train`, ready: '[data-testid="training-form"] [data-testid^="preset-card-"]' },
      { name: 'training-job', url: `/jobs/${ids.jobId}`, ready: '[data-testid="training-monitor"]' },
      { name: 'evaluation-report', url: `/model-versions/${ids.modelVersionId}`, ready: '[data-testid="eval-accuracy"]' },
      { name: 'model-version-try', url: `/model-versions/${ids.modelVersionId}`, ready: '[data-testid="eval-accuracy"]', then: () => tryModelVersion(tab, ids.modelVersionId) },
      { name: 'deployment-overview', url: `/deployments/${ids.deploymentId}/overview`, ready: '[data-testid="deployment-history"]' },
      { name: 'usage', url: `/deployments/${ids.deploymentId}/usage`, ready: '[data-testid="usage-latency-chart"] .recharts-surface' },
      { name: 'studies', url: '/studies', ready: '[data-testid="new-study"]' },
      { name: 'jobs', url: '/jobs', ready: '[data-testid="jobs-panel"]' },
      { name: 'users', url: '/users', ready: '[data-testid="users-table"]' },
    ];
    const written = [];
    const problems = [];
    for (const item of pages) {
      // One page load per page; the picture at each size (the layout follows the window's width).
      try {
        await step(`open ${item.name} (${lang})`, async () => {
          await tab.setViewportSize(SIZES[0]);
          await tab.goto(`${baseUrl}${item.url}`, { waitUntil: 'domcontentloaded' });
          await tab.locator(item.ready).first().waitFor();
          if (item.then) await item.then();
        });
      } catch (error) {
        problems.push(error.message);
        log(`FAILED ${error.message}`);
      }
      for (const size of SIZES) {
        const what = `${item.name} (${lang}, ${size.width}x${size.height})`;
        const file = path.join(shotsRoot, lang, String(size.width), `${item.name}.png`);
        await mkdir(path.dirname(file), { recursive: true });
        try {
          await tab.setViewportSize(size);
          await tab.waitForTimeout(400); // charts resize and animate in
          await tab.screenshot({ path: file });
          written.push(path.relative(shotsRoot, file));
          log(`screenshot ${file}`);
          if (lang === 'zh-CN') await checkChinese(tab, what, data);
          await assertNoSidewaysScroll(tab, what);
        } catch (error) {
          // Every page gets its picture; the failures are reported together after both tours.
          problems.push(error instanceof Error ? error.message : String(error));
          log(`FAILED ${what}: ${error instanceof Error ? error.message : error}`);
        }
      }
    }
    await tab.setViewportSize(SIZES[0]);
    return { written, problems };
  }
}

process.on('unhandledRejection', () => {});

run(main);
