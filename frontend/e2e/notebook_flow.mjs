#!/usr/bin/env node
// A project's notebook through the real UI of a live Sampan server and worker: sign in -> the
// project's Notebooks tab -> Start -> watch it reach `running` (spinner while starting) -> Open
// (JupyterLab in a new tab) -> a notebook from the launcher -> a cell that uses the SDK, already
// signed in, run with Shift+Enter -> the project's name in its output -> back to Sampan -> Stop ->
// `stopped`. No page error, console error or CSP violation on Sampan's own page (JupyterLab's tab
// is another origin with its own policy: its errors are logged, not counted).
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_PROJECT (id), E2E_PROJECT_NAME,
//      E2E_START_TIMEOUT_S (default 180), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints "[e2e] RESULT {...}"; exit 0 when every check passed, 1 with "[e2e] FAILED: ..." otherwise.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const projectId = process.env.E2E_PROJECT;
const projectName = process.env.E2E_PROJECT_NAME;
const startTimeoutMs = Number(process.env.E2E_START_TIMEOUT_S || 180) * 1000;
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/notebook';
const screenshot = screenshots(artifacts);
const NOTEBOOK = '.jp-NotebookPanel:not(.lm-mod-hidden)'; // the notebook shown in JupyterLab's main area
const savedName = `sdk_check_${Date.now().toString(36)}.ipynb`;

async function main() {
  if (!projectId || !projectName) fail('E2E_PROJECT and E2E_PROJECT_NAME must be set');
  if (!process.env.SAMPAN_USER || !process.env.SAMPAN_PASSWORD) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Content Security Policy|Failed to load resource/i.test(message.text())) {
      errors.push(`console error: ${message.text()}`);
    }
  });
  logFailedCalls(page);
  const result = {};
  let labTab = null; // JupyterLab's tab, screenshotted too when a step fails
  const panel = page.getByTestId('notebooks-panel');
  const status = panel.getByTestId('notebook-status');

  try {
    await step('sign in through the login page', () => logIn(page, baseUrl, process.env.SAMPAN_USER, process.env.SAMPAN_PASSWORD));

    await step(`open project ${projectId}'s Notebooks tab`, async () => {
      const response = await page.goto(`${baseUrl}/projects/${projectId}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the project page answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('tab-notebooks').click();
      await panel.getByTestId('notebook-start').waitFor();
      if (!(await panel.getByTestId('notebooks-intro').innerText()).includes('sampan.Client()')) fail('the panel does not say what a notebook gives');
      await screenshot(page, 'notebooks-tab');
    });

    await step('Start a notebook (2048 MiB, 1 CPU) and see it starting', async () => {
      await panel.getByTestId('notebook-memory-mb').fill('2048');
      await panel.getByTestId('notebook-cpus').fill('1');
      const created = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/notebooks/');
      created.catch(() => {});
      await panel.getByTestId('notebook-start').click();
      const response = await created;
      if (![200, 201].includes(response.status())) fail(`POST /api/v1/notebooks/ answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      result.notebook = body.id;
      result.sent = JSON.parse(response.request().postData() || '{}');
      await status.waitFor();
      result.firstStatus = await status.getAttribute('data-status');
      log(`notebook ${body.id}: ${result.firstStatus}`);
      await screenshot(page, 'starting');
    });

    await step(`wait for it to run (up to ${startTimeoutMs / 1000} s)`, async () => {
      await page.waitForFunction(
        () => ['running', 'failed', 'stopped'].includes(document.querySelector('[data-testid="notebook-status"]')?.getAttribute('data-status') ?? ''),
        null,
        { timeout: startTimeoutMs, polling: 500 },
      );
      const now = await status.getAttribute('data-status');
      if (now !== 'running') {
        const reason = (await panel.getByTestId('notebook-stop-reason').count()) ? await panel.getByTestId('notebook-stop-reason').innerText() : '';
        fail(`the notebook ended ${now}: ${reason}`);
      }
      if (await panel.getByTestId('notebook-spinner').count()) fail('a running notebook still shows the spinner');
      await screenshot(page, 'running');
    });

    const lab = await step('Open: JupyterLab in a new tab', async () => {
      const href = await panel.getByTestId('notebook-open').getAttribute('href');
      if (!href || !/token=/.test(href)) fail(`Open links to ${href}, without the notebook's token`);
      const opened = context.waitForEvent('page');
      await panel.getByTestId('notebook-open').click();
      const tab = await opened;
      labTab = tab;
      tab.setDefaultTimeout(60_000);
      tab.on('pageerror', (error) => log(`JupyterLab page error (not counted): ${error.message}`));
      tab.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') log(`JupyterLab console ${message.type()} (not counted): ${message.text().slice(0, 300)}`);
      });
      await tab.waitForLoadState('domcontentloaded');
      await tab.locator('#jp-main-dock-panel').waitFor({ timeout: 90_000 });
      result.labOrigin = new URL(tab.url()).origin;
      await screenshot(tab, 'jupyterlab');
      return tab;
    });

    await step('create a notebook from the launcher and wait for its kernel', async () => {
      // files kept from an earlier session may reopen first (with a kernel dialog): dismiss it, then a launcher
      if (await lab.locator('.jp-Dialog').waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
        await lab.locator('.jp-Dialog .jp-Dialog-button.jp-mod-reject').first().click();
      }
      if (!(await lab.locator('.jp-Launcher:visible').count())) await lab.locator('[data-command="launcher:create"]').first().click();
      await lab.locator('.jp-Launcher:visible .jp-LauncherCard[data-category="Notebook"]').first().click();
      await lab.locator(`${NOTEBOOK} .jp-Cell .cm-content`).first().waitFor();
      const kernelIdle = () => lab.waitForFunction(
        (selector) => document.querySelector(`${selector} .jp-Notebook-ExecutionIndicator`)?.getAttribute('data-status') === 'idle',
        NOTEBOOK,
        { timeout: 90_000, polling: 500 },
      );
      await kernelIdle().catch(() => log('no idle execution indicator seen; running the cell anyway'));
      await screenshot(lab, 'new-notebook');
    });

    await step('run a cell that uses the SDK (Shift+Enter) and see the project name', async () => {
      const code = `import sampan\nprint("PROJECT=" + sampan.Client().projects.get(${Number(projectId)}).name)`;
      await lab.locator(`${NOTEBOOK} .jp-Cell .cm-content`).first().click();
      await lab.keyboard.insertText(code);
      await lab.keyboard.press('Shift+Enter');
      // a run pressed while the kernel's session is still connecting can be dropped (the prompt stays
      // "[ ]:" with no output, seen once on a busy machine): run the first cell again in place
      const started = () => lab.waitForFunction(
        (selector) => {
          const prompt = document.querySelector(`${selector} .jp-InputPrompt`)?.textContent ?? '';
          return /\[(\*|\d+)\]/.test(prompt) || Boolean(document.querySelector(`${selector} .jp-OutputArea`)?.textContent);
        },
        NOTEBOOK,
        { timeout: 30_000, polling: 500 },
      );
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        if (await started().then(() => true, () => false)) break;
        log(`the cell did not start (attempt ${attempt}); running it again`);
        await lab.locator(`${NOTEBOOK} .jp-Cell`).first().click();
        await lab.keyboard.press('Control+Enter');
      }
      // what the kernel is doing while we wait: the execution indicator and the cell's prompt ([*] = running)
      const watch = setInterval(() => {
        lab.evaluate((selector) => ({
          kernel: document.querySelector(`${selector} .jp-Notebook-ExecutionIndicator`)?.getAttribute('data-status'),
          prompt: document.querySelector(`${selector} .jp-InputPrompt`)?.textContent,
          output: document.querySelector(`${selector} .jp-OutputArea`)?.textContent?.slice(0, 200),
        }), NOTEBOOK).then((state) => log(`waiting: ${JSON.stringify(state)}`), () => {});
      }, 10_000);
      try {
        await lab.waitForFunction(
          (selector) => /PROJECT=|Error/.test(document.querySelector(`${selector} .jp-OutputArea`)?.textContent ?? ''),
          NOTEBOOK,
          { timeout: 180_000, polling: 500 },
        );
      } finally {
        clearInterval(watch);
      }
      const text = (await lab.locator(`${NOTEBOOK} .jp-OutputArea`).first().innerText()).trim();
      result.output = text;
      await screenshot(lab, 'sdk-cell');
      if (!text.includes(`PROJECT=${projectName}`)) fail(`the cell printed ${JSON.stringify(text.slice(0, 600))}, not PROJECT=${projectName}`);
      log(`the cell printed: ${text}`);
    });

    await step(`save the notebook as ${savedName}`, async () => {
      await lab.keyboard.press('Control+s');
      // JupyterLab asks for a name on an untitled notebook's first save
      const dialog = lab.locator('.jp-Dialog');
      if (await dialog.waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
        await dialog.locator('input').first().fill(savedName);
        await dialog.locator('.jp-Dialog-button.jp-mod-accept').click();
      }
      await lab.locator(`.jp-DirListing-item[title*="${savedName}"], .jp-DirListing-itemText:has-text("${savedName}")`).first().waitFor();
      await lab.waitForFunction(() => !document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty'), null, { timeout: 30_000, polling: 250 });
      result.saved = savedName;
      await screenshot(lab, 'saved');
      await lab.close();
    });
    await step('back in Sampan: Stop, and see it stopped', async () => {
      await page.bringToFront();
      await panel.getByTestId('notebook-stop').click();
      await page.waitForFunction(
        () => ['stopped', 'failed'].includes(document.querySelector('[data-testid="notebook-status"]')?.getAttribute('data-status') ?? ''),
        null,
        { timeout: 120_000, polling: 500 },
      );
      result.finalStatus = await status.getAttribute('data-status');
      if (result.finalStatus !== 'stopped') fail(`the notebook ended ${result.finalStatus}`);
      if (await panel.getByTestId('notebook-open').count()) fail('a stopped notebook still offers Open');
      await panel.getByTestId('notebook-start').waitFor();
      await screenshot(page, 'stopped');
    });

    if (errors.length) fail(`errors on Sampan's page: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } catch (error) {
    await screenshot(page, 'failure').catch(() => {});
    if (labTab && !labTab.isClosed()) await screenshot(labTab, 'failure-jupyterlab').catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

run(main);
