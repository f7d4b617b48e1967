#!/usr/bin/env node
// Browser check of a forecasting dataset's data side through the real UI of a live Sampan server: a
// wide table of one long weekly series with empty cells for its missing weeks (statsmodels' co2) imported through the
// mapping step; the series profile's chart downsampled over the whole span, zoomed with the range
// slider so the window is read again from the server at full resolution; the fill rule changed and
// saved; a frequency the observations are off refused with the server's message.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_FILE (the CSV), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints "PASSED: dataset #N" and exits 0, or a "FAILED: ..." line and exits 1.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, logFailedCalls, logIn, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const filePath = process.env.E2E_FILE;
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts, { fullPage: true });

/** Picks `name` in a Mantine Select (options read "name (...)" or exactly name). */
async function pick(page, testId, name) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name }).last().click();
}

/** The next PATCH of the dataset (null after 20 s, so a missing one fails the step, not the process). */
function patched(page, datasetId) {
  return page
    .waitForResponse((r) => r.request().method() === 'PATCH' && new URL(r.url()).pathname === `/api/v1/datasets/${datasetId}/`)
    .catch(() => null);
}

async function numberAttribute(locator, attribute) {
  return Number(await locator.getAttribute(attribute));
}

async function main() {
  if (!username || !password || !filePath) fail('SAMPAN_USER, SAMPAN_PASSWORD and E2E_FILE must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors = collectPageErrors(page);
  logFailedCalls(page);
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  try {
    await step('log in', () => logIn(page, baseUrl, username, password));
    const datasetId = await step('create a workspace, a project and a Time-series forecasting dataset', async () => {
      await page.getByTestId('create-workspace').click();
      await page.getByTestId('workspace-name-input').fill(`e2e series ${suffix}`);
      await page.getByTestId('workspace-create-submit').click();
      await page.waitForURL(/\/workspaces\/\d+\/?$/);
      await page.getByTestId('create-project').click();
      await page.getByTestId('project-name-input').fill(`co2 ${suffix}`);
      await page.getByTestId('project-create-submit').click();
      await page.waitForURL(/\/projects\/\d+\/?$/);
      await page.getByTestId('create-dataset').click();
      await page.getByTestId('dataset-name-input').fill(`co2 ${suffix}`);
      await page.getByTestId('dataset-task-type').click();
      await page.getByRole('option', { name: 'Time-series forecasting' }).first().click();
      await page.getByTestId('dataset-create-submit').click();
      await page.waitForURL(/\/datasets\/\d+\/import\/?$/);
      return Number(new URL(page.url()).pathname.split('/').filter(Boolean)[1]);
    });
    await step('import the wide table: timestamp and target suggested, weekly inferred', async () => {
      await page.getByTestId('table-file-input').setInputFiles(filePath);
      await page.getByTestId('ts-mapping').waitFor();
      const timestamp = await page.getByTestId('ts-timestamp-column').inputValue();
      const series = await page.getByTestId('ts-series-column').inputValue();
      const frequency = await page.getByTestId('ts-frequency').inputValue();
      log(`suggested: timestamp "${timestamp}", series "${series}", frequency "${frequency}"`);
      if (!timestamp.startsWith('timestamp')) fail(`the timestamp column suggested is "${timestamp}"`);
      if (!series.startsWith('none')) fail(`a wide table got the series column "${series}"`);
      if (!/\(W\)/.test(frequency)) fail(`the frequency shown is "${frequency}", not weekly`);
      // A wide table's numeric columns are its targets: the one column is suggested.
      if (await page.getByTestId('table-import').isDisabled()) fail('the import waits for a mapping the server should have suggested');
      const created = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/v1/datasets/${datasetId}/imports/`);
      await page.getByTestId('table-import').click();
      const response = await created;
      if (response.status() !== 201) fail(`the import answered ${response.status()}: ${await response.text()}`);
      const batch = await response.json();
      await page.getByTestId(`import-status-${batch.id}`).waitFor();
      const warnings = (batch.problems || []).filter((problem) => problem.action === 'warning');
      log(`import #${batch.id}: ${batch.imported} rows, ${warnings.length} warnings (${[...new Set(warnings.map((w) => w.code))].join(', ')})`);
    });
    const overview = await step('the profile: the whole span downsampled, then a zoomed window read again at full resolution', async () => {
      await page.getByTestId('tab-statistics').click();
      await page.getByTestId('series-profile').waitFor({ timeout: 60_000 });
      // co2's empty cells are missing weeks, to be filled by the fill rule
      const missing = (await page.getByTestId('series-stat-missing').innerText()).trim();
      log(`profile: missing share ${missing}`);
      if (!/[1-9]/.test(missing)) fail(`the profile's missing share is ${missing}`);
      const chart = page.getByTestId('series-chart');
      await page.getByTestId('series-chart-step').waitFor();
      const points = await numberAttribute(chart, 'data-points');
      if (!(points > 100 && points <= 800)) fail(`the overview drew ${points} points`);
      const curve = await chart.locator('svg path.recharts-curve').first().getAttribute('d');
      if (!curve || curve.length < 100) fail('the overview drew no line');
      await screenshot(page, 'profile');

      // The window's start moved right by keyboard to 200 slider positions before the end (the overview
      // holds every 3rd week): ~600 weekly points, few enough to read at full resolution.
      const from = chart.getByRole('slider').first();
      await from.scrollIntoViewIfNeeded();
      await from.focus();
      const last = Number(await from.getAttribute('aria-valuemax'));
      for (let i = 0; i < last - 200; i += 1) await page.keyboard.press('ArrowRight');
      // The chart asks for the window once the slider rests (300 ms).
      const zoomed = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v1/datasets/${datasetId}/series/` && new URL(r.url()).searchParams.has('start'));
      const answer = await zoomed;
      const query = new URL(answer.url()).searchParams;
      const body = await answer.json();
      log(`zoomed: ${query.get('start')} .. ${query.get('end')}, ${body[0].timestamps.length} points (step ${body[0].step})`);
      if (body[0].step !== 1) fail(`the zoomed window is still downsampled (step ${body[0].step})`);
      for (let tries = 0; (await chart.getAttribute('data-zoomed')) !== 'true' || (await numberAttribute(chart, 'data-points')) !== body[0].timestamps.length; tries += 1) {
        if (tries > 40) fail(`the chart does not show the zoomed window (data-points ${await chart.getAttribute('data-points')})`);
        await page.waitForTimeout(250);
      }
      if (await page.getByTestId('series-chart-step').count()) fail('the zoomed chart still says it shows every n-th point');
      await screenshot(page, 'zoomed');
      await page.getByTestId('series-zoom-reset').click();
      for (let tries = 0; (await chart.getAttribute('data-zoomed')) !== 'false'; tries += 1) {
        if (tries > 40) fail('Show everything did not reset the zoom');
        await page.waitForTimeout(250);
      }
      return { start: query.get('start'), end: query.get('end'), points: body[0].timestamps.length };
    });
    await step('change the fill rule and save it; a frequency the observations are off is refused', async () => {
      // The settings sit near the top: scrolled back there, the sticky header covers none of their options.
      await page.evaluate(() => window.scrollTo(0, 0));
      await pick(page, 'series-fill-rule', 'carry the last value forward');
      const rule = await page.getByTestId('series-fill-rule').inputValue();
      if (rule !== 'carry the last value forward') fail(`the fill rule select shows "${rule}"`);
      const saved = patched(page, datasetId);
      await page.getByTestId('series-settings-save').click();
      const answer = await saved;
      if (!answer) fail('Save sent no PATCH');
      if (answer.status() !== 200) fail(`saving the fill rule answered ${answer.status()}: ${await answer.text()}`);
      if ((await answer.json()).schema.fill_rule !== 'forward_fill') fail('the dataset did not keep the fill rule');
      // Saved and read back: nothing left to save.
      await page.locator('[data-testid="series-settings-save"]:disabled:not([data-loading])').waitFor();

      // The frequency by its option (keys pressed before the dropdown opened were lost on a loaded machine).
      await pick(page, 'series-frequency', 'monthly (month start) (MS)');
      const chosen = await page.getByTestId('series-frequency').inputValue();
      if (!chosen.endsWith('(MS)')) fail(`the frequency select shows "${chosen}"`);
      const refused = patched(page, datasetId);
      if (await page.getByTestId('series-settings-save').isDisabled()) fail(`Save is disabled with the frequency "${chosen}"`);
      await page.getByTestId('series-settings-save').click();
      const refusal = await refused;
      if (!refusal) fail('Save sent no PATCH');
      if (refusal.status() !== 400) fail(`a monthly grid for weekly data answered ${refusal.status()}`);
      const message = (await page.getByTestId('series-settings-error').innerText()).trim();
      log(`refused: ${message}`);
      if (!message) fail('the refusal is not shown');
      await screenshot(page, 'settings');
    });
    await writeFile(path.join(artifacts, 'series.json'), JSON.stringify({ dataset: datasetId, zoom: overview }, null, 2));
    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    log(`PASSED: dataset #${datasetId}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

run(main);
