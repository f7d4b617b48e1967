#!/usr/bin/env node
// "Try it" on a model version's page (EasyDL's 校验模型), opened directly by URL: a digit image and
// then a batch of images are answered by POST /model-versions/<id>/try/ (signed in, no key, no
// deployment); the page shows each answer; no page error, console error or CSP violation.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_MODEL_VERSION (id), E2E_IMAGES (JSON list of
//      image paths, the first tried alone), E2E_LANG (default en), E2E_ARTIFACTS, CHROMIUM_PATH.
// Prints "[e2e] RESULT {...}" (the labels shown); exit 0 when every check passed.
import { mkdir } from 'node:fs/promises';

import { collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const modelVersionId = process.env.E2E_MODEL_VERSION;
const images = JSON.parse(process.env.E2E_IMAGES || '[]');
const lang = process.env.E2E_LANG || 'en';
const artifacts = process.env.E2E_ARTIFACTS || './e2e-artifacts/model-version-try';
const screenshot = screenshots(artifacts);

async function main() {
  if (!modelVersionId || images.length < 2) fail('E2E_MODEL_VERSION and E2E_IMAGES (two or more) must be set');
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
    const panel = page.getByTestId('model-version-try');
    const tryWith = async (files) => {
      await panel.locator('input[type="file"]').setInputFiles(files);
      const called = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/v1/model-versions/${modelVersionId}/try/`);
      called.catch(() => {});
      await panel.getByTestId('try-submit').click();
      const response = await called;
      if (response.status() !== 200) fail(`the try answered ${response.status()}: ${await response.text()}`);
      if ((await response.request().allHeaders()).authorization) fail('the try sent a key: signed in, it needs none');
      await panel.getByTestId('try-result').waitFor();
      return response.json();
    };
    await step(`open /model-versions/${modelVersionId} by URL and try one image`, async () => {
      const response = await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'load' });
      if (!response || !response.ok()) fail(`the page answered ${response ? response.status() : 'nothing'}`);
      await panel.waitFor();
      const body = await tryWith(images[0]);
      const shown = await panel.getByTestId('try-label-0').getAttribute('data-label');
      if (shown !== body.predictions[0].top_k[0].label) fail(`the page shows "${shown}", the answer is "${body.predictions[0].top_k[0].label}"`);
      result.one = shown;
      await screenshot(page, `try-one-${lang}`);
    });
    await step(`try a batch of ${images.length} images`, async () => {
      const body = await tryWith(images);
      if (body.predictions.length !== images.length) fail(`${body.predictions.length} answers for ${images.length} images`);
      result.batch = [];
      for (let index = 0; index < images.length; index += 1) {
        const testId = index === 0 ? 'try-label-0' : `try-${index}-label-0`;
        result.batch.push(await panel.getByTestId(testId).getAttribute('data-label'));
      }
      if (result.batch.join() !== body.predictions.map((p) => p.top_k[0].label).join()) fail(`the page shows ${result.batch}, the answer ${JSON.stringify(body.predictions)}`);
      await screenshot(page, `try-batch-${lang}`, { fullPage: true });
      log(`one: ${result.one}; batch: ${result.batch.join(' ')}`);
    });
    if (errors.length) fail(`page errors: ${errors.join(' | ')}`);
    console.log(`[e2e] RESULT ${JSON.stringify(result)}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
