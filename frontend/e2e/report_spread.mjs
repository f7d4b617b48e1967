#!/usr/bin/env node
// A model version's evaluation report shows the spread (opened directly by URL): the cross-validation
// panel with a dot per fold, the mean and the ±1 std band, and the test headline's bootstrap
// interval; no page error, console error or CSP violation.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_MODEL_VERSION (id), E2E_LANG (default en),
//      E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints "[e2e] RESULT {...}" (what the page shows); exit 0 when every check passed.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const modelVersionId = process.env.E2E_MODEL_VERSION;
const lang = process.env.E2E_LANG || 'en';
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/report-spread';
const screenshot = screenshots(artifacts);

async function main() {
  if (!modelVersionId) fail('E2E_MODEL_VERSION must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: lang });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Content Security Policy/i.test(message.text())) errors.push(`console error: ${message.text()}`);
  });
  const result = {};
  try {
    await step('sign in through the API', async () => {
      await context.request.get(`${baseUrl}/api/v1/auth/csrf/`);
      const token = (await context.cookies()).find((cookie) => cookie.name === 'csrftoken')?.value ?? '';
      const login = await context.request.post(`${baseUrl}/api/v1/auth/login/`, {
        data: { username: process.env.SAMPAN_USER, password: process.env.SAMPAN_PASSWORD },
        headers: { 'X-CSRFToken': token, Referer: `${baseUrl}/login` },
      });
      if (!login.ok()) fail(`login answered ${login.status()}: ${await login.text()}`);
    });
    await step(`open /model-versions/${modelVersionId} by URL and read the cross-validation panel`, async () => {
      const response = await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      const panel = page.getByTestId('cv-panel');
      await panel.waitFor();
      await panel.scrollIntoViewIfNeeded();
      result.folds = Number(await panel.getAttribute('data-folds'));
      result.metric = await panel.getAttribute('data-metric');
      result.dots = await panel.getByTestId('cv-fold').count();
      result.scores = await panel.getByTestId('cv-fold').evaluateAll((dots) => dots.map((dot) => Number(dot.getAttribute('data-score'))));
      // every dot is drawn inside the chart (a visible circle with a position)
      result.drawn = await panel.getByTestId('cv-fold').evaluateAll((dots) => dots.filter((dot) => {
        const box = dot.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      }).length);
      result.band = (await panel.getByTestId('cv-band').count()) === 1 && (await panel.getByTestId('cv-mean').count()) === 1;
      result.meanStd = (await panel.getByTestId('cv-mean-std').innerText()).trim();
      result.reason = (await panel.getByTestId('cv-reason').innerText()).trim();
      await screenshot(page, `cv-panel-${lang}`);
    });
    await step('read the test intervals', async () => {
      const headline = page.getByTestId('eval-headline-interval');
      await headline.waitFor();
      result.headline = (await headline.innerText()).trim();
      result.intervals = await page.getByTestId('metric-interval').evaluateAll((spans) =>
        spans.map((span) => ({ metric: span.dataset.metric, low: Number(span.dataset.low), high: Number(span.dataset.high), text: span.textContent })),
      );
      await screenshot(page, `report-${lang}`, { fullPage: true });
      log(`${result.dots} fold dots for ${result.folds} folds; headline: ${result.headline}`);
    });
    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
